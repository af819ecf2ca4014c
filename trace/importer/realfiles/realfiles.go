// Package realfiles finds the files from public repositories that the
// importers' tests read: kept unmodified in testdata/import/real/<tool>/
// <source>/ (each source's licence beside its files), each cited
// (repository, path, commit, licence, SHA-256) in testdata/import/SOURCES.md.
// SSEAUDIT_REAL_IMPORTS names another folder of the same layout, for files
// a licence keeps out of the repository.
package realfiles

import (
	"os"
	"path/filepath"
	"testing"
)

// Env names a folder laid out as testdata/import/real.
const Env = "SSEAUDIT_REAL_IMPORTS"

// Root is the folder of real files: $SSEAUDIT_REAL_IMPORTS, else the
// repository's testdata/import/real, found from the working directory by
// walking up to go.mod; "" when there is none.
func Root() string {
	if d := os.Getenv(Env); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", "import", "real")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Path is a real file (tool/source/name). The files are part of the
// repository: one that is missing fails the test.
func Path(t testing.TB, tool, source, name string) string {
	t.Helper()
	root := Root()
	if root == "" {
		t.Fatalf("no repository root (go.mod) above the working directory, and no $%s", Env)
	}
	p := filepath.Join(root, tool, source, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("real file %s/%s/%s: %v (see testdata/import/SOURCES.md)", tool, source, name, err)
	}
	return p
}
