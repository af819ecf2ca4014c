// Command make writes the traces of testdata/diff (audit diff's examples,
// golden cases and docs/diff.md): the same synthetic run with a 20 ms and a
// 23 ms inter-token gap, another seed, and the 20 ms run without its
// usage-only tails (their token counts in the trace's columns instead). Run from the repository root:
//
//	go run ./testdata/diff/make
package main

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/sseaudit/sseaudit/trace"
	_ "github.com/sseaudit/sseaudit/trace/parquetfile"
	"github.com/sseaudit/sseaudit/tracegen"
)

func main() {
	base := tracegen.Options{Profile: "chat", Requests: 40, Concurrency: 4, Seed: 1, OutputTokens: 32, ITL: 20 * time.Millisecond}
	itl23 := base
	itl23.ITL = 23 * time.Millisecond
	seed2 := base
	seed2.Seed = 2
	for _, t := range []struct {
		name      string
		o         tracegen.Options
		dropUsage bool
	}{
		{"itl20", base, false},
		{"itl23", itl23, false},
		{"itl20-seed2", seed2, false},
		{"itl20-no-usage-tail", base, true},
	} {
		if err := write("testdata/diff/"+t.name+".parquet", t.o, t.dropUsage); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// write generates o into path; dropUsage leaves out every read holding a
// usage-only event (each event of the chat profile is a read of its own).
func write(path string, o tracegen.Options, dropUsage bool) error {
	meta, err := tracegen.Meta(o)
	if err != nil {
		return err
	}
	w, err := trace.Create(path, "", nil, trace.WriteOptions{Meta: meta, Extra: tracegen.Extra()})
	if err != nil {
		return err
	}
	var out trace.RequestWriter = w
	if dropUsage {
		out = dropUsageOnly{w}
	}
	if _, err := tracegen.Generate(o, out); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// dropUsageOnly writes requests without their usage-only reads, their
// token counts moved to the trace's columns (as a client that counts
// tokens itself records them).
type dropUsageOnly struct{ trace.RequestWriter }

var usageRE = regexp.MustCompile(`"prompt_tokens":(\d+),"completion_tokens":(\d+)`)

func (d dropUsageOnly) Write(req *trace.Request) error {
	r := *req
	r.Chunks = nil
	for _, c := range req.Chunks {
		if !bytes.Contains(c.Data, []byte(`"choices":[]`)) {
			r.Chunks = append(r.Chunks, c)
			continue
		}
		if m := usageRE.FindSubmatch(c.Data); m != nil {
			in, _ := strconv.ParseInt(string(m[1]), 10, 64)
			out, _ := strconv.ParseInt(string(m[2]), 10, 64)
			r.InputTokens, r.OutputTokens = &in, &out
		}
	}
	return d.RequestWriter.Write(&r)
}
