package unit

import (
	"math"
	"testing"
)

// Every way a value is spelled, beside what AISBench prints for the same
// rounded value (its <ds>.csv cells and table).
func TestSpelling(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{AISBenchNumber(Seconds, 0.0123456), "12.3456"},
		{AISBenchNumber(Seconds, 3.94), "3940.0"},
		{AISBenchNumber(Tokens, 100), "100.0"},
		{AISBenchNumber(TokensPerSecond, 25.641), "25.641"},
		{AISBenchText(Seconds, 0.5), "500.0 ms"},
		{AISBenchText(TokensPerSecond, 2000), "2000.0 token/s"},
		{AISBenchText(Tokens, 1000), "1000.0"},
		{Value(Seconds, 0.01234567), "12.3457"},
		{Value(Seconds, math.NaN()), "-"},
		{Value(TokensPerEvent, 2.5), "2.5"},
		{Value(Ratio, 1.0/3), "0.3333"},
		{Text(Count, 187), "187"},
		{Text(Fraction, 0.5), "50.0%"},
		{Text(Fraction, 1.0/3), "33.3%"},
		{Text(Ratio, 2), "2.0"},
		{Text(Seconds, 0.0125), "12.5 ms"},
		{Text(TokensPerEvent, 4), "4.0 token/event"},
		{Label(Seconds), "ms"},
		{Label(Tokens), "tokens"},
		{Label(TokensPerSecond), "token/s"},
		{Plural(1, "request"), "1 request"},
		{Plural(0, "request"), "0 requests"},
		{Plural(12, "start"), "12 starts"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if Scale(Seconds) != 1000 || Scale(Tokens) != 1 || Scale(Ratio) != 1 {
		t.Error("scales: seconds show in ms, the rest as kept")
	}
}
