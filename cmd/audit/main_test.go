package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of the CLI tests")

// The CLI tests run from the repository's root, so that the arguments in
// testdata/cli/*.args name files the way the README does.
func TestMain(m *testing.M) {
	if err := os.Chdir("../.."); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// runCLI runs the command with args (the program name left out).
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runEnv(env{stdout: &out, stderr: &errb, stdin: strings.NewReader(stdin)}, append([]string{"audit"}, args...))
	return out.String(), errb.String(), code
}

// TestGolden runs every testdata/cli/NAME.args (one argument a line; a line
// "<<< TEXT" gives stdin) and compares stdout, stderr and the exit code with
// NAME.stdout, NAME.stderr and NAME.exit. -update rewrites them; a mismatch
// leaves NAME.*.got beside them.
func TestGolden(t *testing.T) {
	dir := filepath.Join("cmd", "audit", "testdata", "cli")
	cases, err := filepath.Glob(filepath.Join(dir, "*.args"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no golden cases in %s: %v", dir, err)
	}
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".args")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(c)
			if err != nil {
				t.Fatal(err)
			}
			var args []string
			stdin := ""
			for _, line := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
				if s, ok := strings.CutPrefix(line, "<<< "); ok {
					stdin += strings.ReplaceAll(s, `\n`, "\n")
					continue
				}
				args = append(args, line)
			}
			stdout, stderr, code := runCLI(t, stdin, args...)
			base := strings.TrimSuffix(c, ".args")
			check := func(ext, got string) {
				path := base + ext
				if *update {
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./cmd/audit -update to create it)", err)
				}
				if got != string(want) {
					os.WriteFile(path+".got", []byte(got), 0o644)
					t.Errorf("%s differs from %s (got in %s.got):\n%s", ext, path, path, got)
				} else {
					os.Remove(path + ".got")
				}
			}
			check(".stdout", stdout)
			check(".stderr", stderr)
			check(".exit", strconv.Itoa(code)+"\n")
		})
	}
}
