#!/usr/bin/env bash
# build-release.sh [OUT]: builds the audit binary people are given (default
# ./bin/audit) with the release toolchain below, not the machine's own Go.
#
# go.mod asks for Go 1.26, so any Go 1.26 builds and tests sseaudit; but the
# standard library of go1.26.8 has advisories in code audit reaches (net/http
# in serve and capture, crypto/x509, net/textproto; docs/hardening.md). The
# release toolchain has none in the pinned vulnerability database, and .ci/run
# fails if govulncheck finds anything with it. The go command fetches it from
# the Go module proxy (about 76 MB, once per machine).
set -euo pipefail
release_toolchain=go1.27.3

cd "$(dirname "$0")/.."
out=${1:-./bin/audit}
export PATH=/usr/local/go/bin:$PATH
GOTOOLCHAIN=$release_toolchain CGO_ENABLED=0 go build -trimpath -o "$out" ./cmd/audit
GOTOOLCHAIN=$release_toolchain go version "$out"
