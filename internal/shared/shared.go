// Package shared finds the project's shared folder, which sits beside the
// checkout (../shared from the repository's root) and holds what tests read
// but the repository does not keep: the corpus of real server streams, the
// oracle that runs AISBench's code, the benchmark yardsticks.
//
// Tests find it from their package folder by walking up to go.mod, never by
// a machine's absolute path. Without it a test skips, saying what is
// missing, except under CI (CI set, or SSEAUDIT_REQUIRE_SHARED=1 as .ci/run
// sets it), where shared/ lies beside the checkout and its absence is a
// failure.
package shared

import (
	"os"
	"path/filepath"
	"testing"
)

// RequireEnv makes a missing shared folder a failure instead of a skip.
const RequireEnv = "SSEAUDIT_REQUIRE_SHARED"

// Required says whether a missing shared folder fails the test.
func Required() bool {
	return os.Getenv("CI") != "" || os.Getenv(RequireEnv) == "1"
}

// Root is the shared folder beside the checkout holding the working
// directory, or "" when there is none.
func Root() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(filepath.Dir(dir), "shared")
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				return d
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Dir is shared/<rel> (a slash-separated path). When it is absent the test
// skips, or fails under CI.
func Dir(t testing.TB, rel string) string {
	t.Helper()
	root := Root()
	if root == "" {
		missing(t, "no shared/ folder beside the checkout (it holds "+rel+")")
		return ""
	}
	d := filepath.Join(root, filepath.FromSlash(rel))
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		missing(t, "no "+rel+" in "+root)
		return ""
	}
	return d
}

func missing(t testing.TB, why string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s: under CI it must be there ($CI or $%s=1)", why, RequireEnv)
	}
	t.Skipf("skipping: %s; set $%s=1 to make this a failure", why, RequireEnv)
}
