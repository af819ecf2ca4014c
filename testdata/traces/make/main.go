// Command make writes testdata/traces/basic.jsonl, a small chat-completions
// run at concurrency 2 shaped like a vLLM server's stream: a role-only first
// event, content events, a finish event, a usage-only tail and [DONE]; one
// request reasons first, one answers HTTP 500, one arrives with two events in
// one read and one with an event split over two reads.
//
//	go run ./testdata/traces/make > testdata/traces/basic.jsonl
//	sh testdata/traces/make.sh   # the other formats and layouts
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type chunk struct {
	TNs  int64  `json:"t_ns"`
	Data string `json:"data"`
}

type request struct {
	RequestID  string  `json:"request_id"`
	T0Ns       int64   `json:"t0_ns"`
	EndNs      int64   `json:"end_ns"`
	HTTPStatus int     `json:"http_status"`
	Chunks     []chunk `json:"chunks"`
}

const ms = int64(1_000_000)

func event(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return "data: " + string(b) + "\n\n"
}

func delta(d map[string]any, finish any) string {
	return event(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m",
		"choices": []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}, "usage": nil})
}

func usage(prompt, completion int) string {
	return event(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m",
		"choices": []any{}, "usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}})
}

func main() {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintln(w, `{"run": {"max_concurrency": 2, "schema_version": 1, "source": "testdata/traces/make", "model": "m"}}`)
	// Closed loop at concurrency 2: each slot starts its next request when
	// its previous one ends.
	slots := []int64{1_000 * ms, 1_020 * ms}
	words := strings.Fields("The quick brown fox jumps over the lazy dog and runs far away")
	for i := 0; i < 10; i++ {
		s := i % 2
		t0 := slots[s]
		t := t0 + 180*ms + int64(i)*7*ms // time to first event
		req := request{RequestID: fmt.Sprintf("req-%02d", i), T0Ns: t0, HTTPStatus: 200}
		add := func(data string, gap int64) {
			t += gap
			req.Chunks = append(req.Chunks, chunk{t, data})
		}
		if i == 5 {
			req.HTTPStatus = 500
			add(`{"object":"error","message":"Internal Server Error","code":500}`, 0)
			req.EndNs = t
			fmt.Fprintln(w, mustJSON(req))
			slots[s] = t + 5*ms
			continue
		}
		add(delta(map[string]any{"role": "assistant", "content": ""}, nil), 0)
		n := 6 + i%4
		if i == 3 {
			for k := 0; k < 3; k++ {
				add(delta(map[string]any{"reasoning_content": words[k] + " "}, nil), 20*ms)
			}
		}
		for k := 0; k < n; k++ {
			ev := delta(map[string]any{"content": words[k%len(words)] + " "}, nil)
			switch {
			case i == 2 && k == 2: // two events in one read
				ev += delta(map[string]any{"content": "and "}, nil)
			case i == 4 && k == 3: // one event split over two reads
				add(ev[:17], 25*ms)
				ev = ev[17:]
				t -= 24 * ms
			}
			add(ev, 25*ms+int64(k%3)*ms)
		}
		add(delta(map[string]any{}, "stop"), 3*ms)
		out := n
		if i == 2 {
			out++
		}
		if i == 3 {
			out += 3
		}
		add(usage(100+i, out), 1*ms)
		add("data: [DONE]\n\n", 0)
		req.EndNs = t
		fmt.Fprintln(w, mustJSON(req))
		slots[s] = t + 2*ms
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
