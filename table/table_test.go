package table

import (
	"bytes"
	"strings"
	"testing"
)

// Text aligns labels left and values right, puts " | " between groups and
// each group's title over it, left-aligned; with colour, only bold escapes are added
// around whole lines, so the characters between them are the plain ones.
func TestText(t *testing.T) {
	tab := &Table{Lead: 2, Group: 2, Titles: []string{"whole", "a long native title"}, Prefixes: []string{"whole", "native"},
		Rows: [][]string{
			{"Metric", "Unit", "Avg", "N", "Avg", "N"},
			{"E2EL", "ms", "3940.0", "5", "4233.3", "3"},
			{"ITL|x", "", "1.5", "12", "-", "-"},
		}}
	var plain, color strings.Builder
	tab.Text(&plain, false)
	tab.Text(&color, true)
	// A title wider than its group widens the group's last column.
	want := "" +
		"              whole      | a long native title\n" +
		"Metric  Unit     Avg   N |    Avg            N\n" +
		"E2EL    ms    3940.0   5 | 4233.3            3\n" +
		"ITL|x            1.5  12 |      -            -\n"
	if plain.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", plain.String(), want)
	}
	if got := strings.ReplaceAll(strings.ReplaceAll(color.String(), Bold, ""), "\x1b[0m", ""); got != want {
		t.Errorf("colour adds more than escapes:\n%q", color.String())
	}
	if !strings.HasPrefix(color.String(), Bold) {
		t.Errorf("the title line is not bold: %q", color.String())
	}

	var md strings.Builder
	tab.Markdown(&md)
	wantMD := "| Metric | Unit | whole Avg | whole N | native Avg | native N |\n" +
		"|---|---|---:|---:|---:|---:|\n" +
		"| E2EL | ms | 3940.0 | 5 | 4233.3 | 3 |\n" +
		"| ITL\\|x |   | 1.5 | 12 | - | - |\n"
	if md.String() != wantMD {
		t.Errorf("markdown:\n%s\nwant:\n%s", md.String(), wantMD)
	}
	if tab.Rows[0][2] != "Avg" {
		t.Error("Markdown changed the table's header")
	}
}

// CSV quotes as encoding/csv does; a row with a comma, a quote or a newline
// survives.
func TestCSV(t *testing.T) {
	tab := &Table{Rows: [][]string{{"metric", "value"}, {"a,b", `say "hi"`}, {"multi\nline", ""}}}
	var buf bytes.Buffer
	if err := tab.CSV(&buf); err != nil {
		t.Fatal(err)
	}
	want := "metric,value\n\"a,b\",\"say \"\"hi\"\"\"\n\"multi\nline\",\n"
	if buf.String() != want {
		t.Errorf("csv %q, want %q", buf.String(), want)
	}
}

func TestPaint(t *testing.T) {
	if Paint(false, Red, "x") != "x" || Paint(true, Red, "") != "" || Paint(true, Red, "x") != Red+"x\x1b[0m" {
		t.Error("Paint")
	}
}
