package shared

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRootBesideTheCheckout(t *testing.T) {
	top := t.TempDir()
	checkout := filepath.Join(top, "repo")
	pkg := filepath.Join(checkout, "a", "b")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(checkout, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(pkg)
	if got := Root(); got != "" {
		t.Fatalf("Root() = %q without a shared folder", got)
	}
	if err := os.MkdirAll(filepath.Join(top, "shared", "corpus", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(filepath.Join(top, "shared"))
	got, _ := filepath.EvalSymlinks(Root())
	if got != want {
		t.Fatalf("Root() = %q, want %q", got, want)
	}
	t.Setenv("CI", "")
	t.Setenv(RequireEnv, "")
	if Required() {
		t.Fatal("Required() without CI")
	}
	t.Setenv(RequireEnv, "1")
	if !Required() {
		t.Fatal("Required() false with " + RequireEnv + "=1")
	}
}
