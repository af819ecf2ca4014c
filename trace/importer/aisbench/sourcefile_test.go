package aisbench

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// TestLongLine: a details line over Options.MaxLineBytes is an error that
// names the file, the line and the limit (sourcefile's line reader).
func TestLongLine(t *testing.T) {
	_, err := Load(filepath.Join(workdirs, "basic"), Options{MaxLineBytes: 64})
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, trace.ErrLimit) || e.Line != 1 || !strings.HasSuffix(e.File, "_details.jsonl") || !strings.Contains(e.Msg, "a line of more than 64 bytes") {
		t.Errorf("error %v", err)
	}
}
