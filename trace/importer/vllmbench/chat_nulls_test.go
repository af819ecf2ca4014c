package vllmbench

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// goldenResult builds what `vllm bench serve --save-result --save-detailed`
// writes for a run from one of calc/vllm's goldens (per-request outputs and
// result keys computed by vLLM's own code at 2f41c894): the result's
// figures, then start_times, input_lens, output_lens, ttfts, itls, errors.
func goldenResult(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../../../testdata/tools/golden/" + name + ".vllm.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		API        string                     `json:"api"`
		Result     map[string]json.RawMessage `json:"result"`
		PerRequest []struct {
			Success      bool      `json:"success"`
			StartTime    float64   `json:"start_time"`
			TTFT         float64   `json:"ttft"`
			ITL          []float64 `json:"itl"`
			OutputTokens int64     `json:"output_tokens"`
			PromptLen    int64     `json:"prompt_len"`
			Error        string    `json:"error"`
		} `json:"per_request"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	res := map[string]any{"backend": map[string]string{"chat": "openai-chat", "completions": "openai"}[g.API], "model_id": "m"}
	for k, v := range g.Result {
		res[k] = v
	}
	var st, ttfts []float64
	var itls [][]float64
	var in, out []int64
	var errs []string
	for _, r := range g.PerRequest {
		st, ttfts, itls = append(st, r.StartTime), append(ttfts, r.TTFT), append(itls, append([]float64{}, r.ITL...))
		o := int64(0)
		if r.Success {
			o = r.OutputTokens // vLLM: actual_output_lens, 0 for a failure
		}
		in, out, errs = append(in, r.PromptLen), append(out, o), append(errs, r.Error)
	}
	res["start_times"], res["ttfts"], res["itls"] = st, ttfts, itls
	res["input_lens"], res["output_lens"], res["errors"] = in, out, errs
	j, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestChatE2ELReproducedOrSkipped: the result of a chat run
// (--backend openai-chat), per-request values from vLLM's own code. vLLM's
// chat request function moves most_recent_timestamp on every message it
// parses (the usage-only tail included), so its latency — E2EL, and TPOT
// through it — ends after the last token, not at ttft + sum(itls). Check
// must not compare those figures against time points that end at the last
// token (or must get them right): every figure it compares must agree.
func TestChatE2ELReproducedOrSkipped(t *testing.T) {
	for _, name := range []string{"gen-chat-completions", "gen-chat-chat"} {
		rd, err := Read(bytes.NewReader(goldenResult(t, name)), name+".json", Options{})
		if err != nil {
			t.Fatal(err)
		}
		for rd.Scan() {
		}
		if rd.Err() != nil {
			t.Fatal(rd.Err())
		}
		c := rd.Check()
		if d := c.Differing(); len(d) > 0 {
			var names []string
			for _, f := range d {
				names = append(names, f.Name)
			}
			t.Errorf("%s: %d of %d figures differ (%s):\n%s", name, len(d), len(c.Figures), strings.Join(names, ", "), c)
		}
	}
}

// TestNullEntries: a null where a list wants a number or a string is
// bad input; encoding/json leaves a null slice element at its zero value,
// so a null error imported as a success, a null ttft as 0 s, a null start
// as 0 among real starts, a null itl as 0 s — silently. Each must be an
// error naming the list and the request.
func TestNullEntries(t *testing.T) {
	for _, c := range []struct{ name, mod, want string }{
		{"errors", `"errors":[null,""]`, "errors[0]"},
		{"ttfts", "\"ttfts\":[\n  null ,\n 0.2]", "ttfts[0]"},
		{"start_times", `"start_times":[null,2.0]`, "start_times[0]"},
		{"itls", `"itls":[[0.01,null],[0.02]]`, "itls[0][1]"},
		{"output_lens", `"output_lens":[null,2]`, "output_lens[0]"},
	} {
		doc := listsDoc(c.name, c.mod)
		if err := readAll(doc); err == nil || !strings.Contains(err.Error(), c.want) {
			r0 := "?"
			if rd, rerr := Read(strings.NewReader(doc), "r.json", Options{}); rerr == nil && rd.Scan() {
				b, _ := json.Marshal(rd.Request())
				r0 = string(b)
			}
			t.Errorf("%s: err %v, want an error naming %s; request 0 imported as %s", c.name, err, c.want, r0)
		}
	}
}

// TestBadEntryNamed: an entry of the wrong type is refused naming the
// list, the request (and the interval) and the value.
func TestBadEntryNamed(t *testing.T) {
	for _, c := range []struct{ name, mod, want string }{
		{"ttfts", `"ttfts":[0.1,NaN]`, `ttfts[1] ("NaN")`},
		{"output_lens", `"output_lens":[3,2.0]`, `output_lens[1] (2.0)`},
		{"itls", `"itls":[[0.01,0.01],[0.02,"x"]]`, `itls[1][1] ("x")`},
	} {
		if err := readAll(listsDoc(c.name, c.mod)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to name %s", c.name, err, c.want)
		}
	}
}

// listsDoc is a vllm bench result of two good requests whose list name is
// replaced by mod (its "name": [...] member).
func listsDoc(name, mod string) string {
	in := map[string]string{
		"start_times": `"start_times":[1.0,2.0]`, "ttfts": `"ttfts":[0.1,0.2]`, "itls": `"itls":[[0.01,0.01],[0.02]]`,
		"input_lens": `"input_lens":[3,4]`, "output_lens": `"output_lens":[3,2]`, "errors": `"errors":["",""]`,
	}
	in[name] = mod
	var parts []string
	for _, k := range []string{"start_times", "ttfts", "itls", "input_lens", "output_lens", "errors"} {
		parts = append(parts, in[k])
	}
	return `{"backend":"vllm","model_id":"m",` + strings.Join(parts, ",") + `}`
}

// readAll imports doc to its end and returns the first error.
func readAll(doc string) error {
	rd, err := Read(strings.NewReader(doc), "r.json", Options{})
	if err != nil {
		return err
	}
	for rd.Scan() {
	}
	return rd.Err()
}
