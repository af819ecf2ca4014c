package comparison

import (
	"encoding/json"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/trace"
)

// PromptColumn is the extra column a trace's prompts are read from (what
// audit gen and audit capture write, and serve --match reads).
const PromptColumn = "prompt"

// AddTrace replays every request of r with opts (record.Each, with
// KeepReplay) and adds it to b, with its prompt when the trace has a
// prompt column.
func (b *Builder) AddTrace(r trace.Reader, opts record.Options) error {
	pr := &promptReader{Reader: r, column: -1}
	for i, x := range r.Info().Extra {
		if x.Name == PromptColumn && (x.Kind == trace.ExtraString || x.Kind == trace.ExtraJSON) {
			pr.column, pr.json = i, x.Kind == trace.ExtraJSON
		}
	}
	start := len(b.facts)
	opts.KeepReplay = true
	err := record.Each(pr, opts, func(rr *record.Replayed) error {
		b.Add(FromReplayed(rr))
		return nil
	})
	if err != nil || pr.column < 0 {
		return err
	}
	// record.Each has returned: the reader's goroutine is done with keys.
	for k, key := range pr.keys {
		b.facts[start+k].prompt, b.facts[start+k].hasPrompt = key, pr.has[k]
	}
	return nil
}

// promptReader is a trace.Reader that notes each request's prompt as it
// is scanned (record.Each hands the requests on in this order).
type promptReader struct {
	trace.Reader
	column int
	json   bool
	keys   []PromptKey
	has    []bool
}

func (p *promptReader) Scan() bool {
	if !p.Reader.Scan() {
		return false
	}
	if p.column >= 0 {
		key, ok := p.prompt(p.Reader.Request())
		p.keys, p.has = append(p.keys, key), append(p.has, ok)
	}
	return true
}

// prompt is the request's prompt key, and whether it has a prompt.
func (p *promptReader) prompt(req *trace.Request) (PromptKey, bool) {
	if p.column >= len(req.Extra) || req.Extra[p.column].Null {
		return PromptKey{}, false
	}
	s := req.Extra[p.column].Str
	if p.json {
		var text string
		if json.Unmarshal([]byte(s), &text) != nil {
			return KeyOf(s), true // not a JSON string: the text itself identifies it
		}
		s = text
	}
	return KeyOf(s), true
}
