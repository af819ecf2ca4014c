// Package realfiles finds the files from public repositories that the
// importers' tests read. They are not kept in this repository: they lie in
// the project's shared corpus beside the checkout,
// shared/corpus/real-imports/<tool>/<source>/, each cited (repository,
// path, commit, licence) in testdata/import/SOURCES.md.
// SSEAUDIT_REAL_IMPORTS names another folder of the same layout.
package realfiles

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sseaudit/sseaudit/internal/shared"
)

// Env names a folder laid out as shared/corpus/real-imports.
const Env = "SSEAUDIT_REAL_IMPORTS"

// Root is the corpus folder, or "" when there is none.
func Root() string {
	if d := os.Getenv(Env); d != "" {
		return d
	}
	root := shared.Root()
	if root == "" {
		return ""
	}
	d := filepath.Join(root, "corpus", "real-imports")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d
	}
	return ""
}

// Path is a file of the corpus (tool/source/name). Without the corpus the
// test is skipped, saying so: the files come to shared/ from the steering
// repository, which may not hold them yet. With the corpus, a file missing
// from it fails the test under CI (a file lost) and skips it elsewhere.
func Path(t testing.TB, tool, source, name string) string {
	t.Helper()
	root := Root()
	if root == "" {
		t.Skipf("no real-imports corpus (shared/corpus/real-imports beside the checkout, or $%s): the files cited in testdata/import/SOURCES.md are not here", Env)
	}
	p := filepath.Join(root, tool, source, name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if shared.Required() {
		t.Fatalf("no %s/%s/%s in the real-imports corpus %s", tool, source, name, root)
	}
	t.Skipf("no %s/%s/%s in the real-imports corpus %s", tool, source, name, root)
	return ""
}
