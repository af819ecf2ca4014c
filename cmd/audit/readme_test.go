package main

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEExamples runs every `go run ./cmd/audit ...` line of the README's
// code blocks, and the examples of every command's --help, and wants exit 0:
// documentation that runs. Paths under /tmp are moved to a test folder.
func TestREADMEExamples(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "go run ./cmd/audit "); ok {
			if i := strings.Index(rest, "#"); i >= 0 {
				rest = rest[:i]
			}
			lines = append(lines, rest)
		}
	}
	for _, c := range newApp(env{}).Commands {
		for _, line := range strings.Split(c.Description, "\n") {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "audit "); ok {
				lines = append(lines, rest)
			}
		}
	}
	if len(lines) < 5 {
		t.Fatalf("found %d examples, want the README's and every command's", len(lines))
	}
	tmp := t.TempDir()
	for _, l := range lines {
		l = strings.ReplaceAll(l, "/tmp/", tmp+"/")
		args := shellFields(l)
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			_, stderr, code := runCLI(t, "", args...)
			if code != 0 {
				t.Errorf("audit %s: exit %d\n%s", l, code, stderr)
			}
		})
	}
}

// shellFields splits a command line as a shell would for the simple cases
// examples use: blanks separate, single and double quotes group.
func shellFields(s string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
