package tools

import (
	"slices"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// noTimes is a trace whose metadata says it has no send times, as an
// import of a vLLM result saved before start_times says.
type noTimes struct{ trace.Reader }

func (r noTimes) Info() trace.Info {
	info := r.Reader.Info()
	info.Meta = slices.Clone(info.Meta)
	info.Meta.Set(trace.KeyStartTimes, "test: no send times")
	return info
}

// Without send times every tool's keys that divide by the run's timeline
// say why they are not computed; the per-request keys are as they were.
func TestWithoutTimeline(t *testing.T) {
	path := root + "/testdata/traces/basic.jsonl"
	run := func(wrap bool) *Report {
		rep, err := Run(func() (trace.Reader, error) {
			r, err := trace.Open(path, trace.OpenOptions{})
			if wrap && err == nil {
				return noTimes{r}, nil
			}
			return r, err
		}, Options{Tools: Known, Why: true})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	with, without := run(false), run(true)
	for i, tr := range without.Tools {
		own := with.Tools[i]
		listed := timelineKeys[family(tr.Tool.Name)]
		for _, k := range listed {
			if !slices.ContainsFunc(own.Keys, func(x Key) bool { return x.Name == k }) {
				t.Errorf("%s: timeline key %q is not one of its keys", tr.Tool.Name, k)
			}
		}
		for j, k := range tr.Keys {
			if slices.Contains(listed, k.Name) {
				if k.Value != nil || k.NotComputed == "" {
					t.Errorf("%s: %s = %v (%q) without send times", tr.Tool.Name, k.Name, k.Value, k.NotComputed)
				}
			} else if k != own.Keys[j] {
				t.Errorf("%s: %s moved: %+v, with send times %+v", tr.Tool.Name, k.Name, k, own.Keys[j])
			}
		}
		if tr.Summary[Duration].Known || tr.Summary[OutputThroughput].Known || !tr.Summary[TTFTMean].Known {
			t.Errorf("%s: summary %+v", tr.Tool.Name, tr.Summary)
		}
		if own.Summary[TTFTMean] != tr.Summary[TTFTMean] || own.Summary[ITLSamples] != tr.Summary[ITLSamples] {
			t.Errorf("%s: per-request figures moved", tr.Tool.Name)
		}
	}
}
