package replay

import (
	"strconv"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

const (
	pRole    = `{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`
	pContent = `{"choices":[{"index":0,"delta":{"content":"hi"}}]}`
	pUsage   = `{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}`
)

// mkReq builds a 200 request whose chunks arrive 1 ms apart from t0 = 1 s.
func mkReq(chunks ...string) *trace.Request {
	status := int32(200)
	req := &trace.Request{RequestID: "r", T0Ns: 1_000_000_000, HTTPStatus: &status, Chunks: []trace.Chunk{}}
	for i, c := range chunks {
		req.Chunks = append(req.Chunks, trace.Chunk{TNs: req.T0Ns + int64(i+1)*1_000_000, Data: []byte(c)})
	}
	return req
}

func mustReplay(t *testing.T, req *trace.Request, f Framer) *Result {
	t.Helper()
	res, err := Replay(req, Options{Framer: f})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Bytes.Sum(); s != req.BodyBytes() {
		t.Fatalf("buckets sum to %d, body is %d", s, req.BodyBytes())
	}
	return res
}

// bytesOf renders the non-zero buckets, in Buckets order.
func bytesOf(b ByteCounts) string {
	var parts []string
	for _, k := range Buckets {
		if b[k] != 0 {
			parts = append(parts, k.String()+"="+strconv.FormatInt(b[k], 10))
		}
	}
	return strings.Join(parts, " ")
}

// n is the length of s as text.
func n(s string) string { return strconv.Itoa(len(s)) }

func formatInt(v int64) string { return strconv.FormatInt(v, 10) }

func TestByteAccounting(t *testing.T) {
	bad := "event: x\ndata: {}"
	cases := []struct {
		name   string
		framer Framer
		body   []string
		want   string
	}{
		{"aisbench lf", AISBench, []string{"data: " + pContent + "\n\n", "data: [DONE]\n\n"},
			"content=" + n(pContent) + " done=6 framing=16"},
		{"sse lf", SSE, []string{"data: " + pContent + "\n\n", "data: [DONE]\n\n"},
			"content=" + n(pContent) + " done=6 framing=16"},
		{"aisbench crlf", AISBench, []string{"data: " + pContent + "\r\n\r\n"},
			"content=" + n(pContent) + " framing=10"},
		{"sse crlf", SSE, []string{"data: " + pContent + "\r\n\r\n"},
			"content=" + n(pContent) + " framing=10"},
		{"aisbench comment block", AISBench, []string{": ping\n\n", "data: " + pContent + "\n\n"},
			"content=" + n(pContent) + " comment=6 framing=10"},
		{"sse comment block", SSE, []string{": ping\n\n", "data: " + pContent + "\n\n"},
			"content=" + n(pContent) + " comment=6 framing=10"},
		// The whole stripped block is the payload AISBench tries to parse.
		{"aisbench event line", AISBench, []string{bad + "\n\n"}, "malformed=" + n(bad) + " framing=2"},
		{"sse event line", SSE, []string{"event: message\ndata: " + pContent + "\n\n"},
			"content=" + n(pContent) + " framing=" + formatInt(int64(len("event: message\ndata: \n\n")))},
		{"sse unknown field", SSE, []string{"foo: bar\ndata: " + pContent + "\n\n"},
			"content=" + n(pContent) + " framing=" + formatInt(int64(len("\ndata: \n\n"))) + " ignored=8"},
		{"sse id and retry", SSE, []string{"id: 7\nretry: 10\ndata: " + pContent + "\n\n"},
			"content=" + n(pContent) + " framing=" + formatInt(int64(len("id: 7\nretry: 10\ndata: \n\n")))},
		{"sse not dispatched at end", SSE, []string{"data: " + pContent + "\n"},
			"framing=7 ignored=" + n(pContent)},
		{"sse unterminated line", SSE, []string{"data: " + pContent + "\n\ndata: x"},
			"content=" + n(pContent) + " framing=8 ignored=7"},
		{"aisbench after done", AISBench, []string{"data: [DONE]\n\n", "data: " + pContent + "\n\n"},
			"done=6 after_done=" + formatInt(int64(len("data: "+pContent+"\n\n"))) + " framing=8"},
		{"sse after done", SSE, []string{"data: [DONE]\n\n", "data: " + pContent + "\n\n"},
			"done=6 after_done=" + formatInt(int64(len("data: "+pContent+"\n\n"))) + " framing=8"},
		// \n\r\n\r\n: iter_lines rewrites \r\n\r\n, splits the first \n
		// with the first rewritten one and strips the lone second.
		{"aisbench lf then crlf blank", AISBench, []string{"data: " + pRole + "\n\r\n\r\n", "data: " + pContent + "\n\n"},
			"role=" + n(pRole) + " content=" + n(pContent) + " framing=19"},
		{"sse bom", SSE, []string{"\xef\xbb\xbfdata: " + pContent + "\n\n"},
			"content=" + n(pContent) + " framing=11"},
		{"aisbench cr only", AISBench, []string{"data: " + pContent + "\r\r", "data: " + pUsage + "\r\r"},
			"content=" + n(pContent) + " usage_only=" + n(pUsage) + " framing=16"},
		{"sse cr only", SSE, []string{"data: " + pContent + "\r\r", "data: " + pUsage + "\r\r"},
			"content=" + n(pContent) + " usage_only=" + n(pUsage) + " framing=16"},
		{"aisbench unicode strip", AISBench, []string{"data:\u00a0" + pContent + "\u3000\n\n"},
			"content=" + n(pContent) + " framing=" + formatInt(int64(len("data:\u00a0\u3000\n\n")))},
		{"sse multi-line data", SSE, []string{"data: {\"choices\":\ndata: []}\n\n"},
			"metadata_only=" + formatInt(int64(len(`{"choices":`)+len(`[]}`))) + " framing=" + formatInt(int64(len("data: \ndata: \n\n")))},
		{"aisbench whitespace only", AISBench, []string{"\n\n \n\n"}, "framing=5"},
		{"empty body", AISBench, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := mustReplay(t, mkReq(c.body...), c.framer)
			if got := bytesOf(res.Bytes); got != c.want {
				t.Errorf("buckets\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestEventRanges(t *testing.T) {
	body := ": ping\n\ndata: " + pContent + "\n\n"
	for _, f := range []Framer{AISBench, SSE} {
		res := mustReplay(t, mkReq(body), f)
		if len(res.Events) != 2 {
			t.Fatalf("%s: %d events", f, len(res.Events))
		}
		ping, data := res.Events[0], res.Events[1]
		if ping.Class != ClassComment || ping.Start != 0 || ping.End != 6 || ping.Recorded {
			t.Errorf("%s: ping event %+v", f, ping)
		}
		if data.Class != ClassContent || data.Start != 8 || !data.Recorded || data.ContentBytes != 2 {
			t.Errorf("%s: data event %+v", f, data)
		}
		if data.End != int64(len(body)-2) {
			t.Errorf("%s: data event ends at %d, want %d", f, data.End, len(body)-2)
		}
	}
}

// Cases where the two framers disagree, each showing why.
func TestFramersDisagree(t *testing.T) {
	t.Run("comment line inside a data block", func(t *testing.T) {
		req := mkReq("data: "+pRole+"\n\n", ": note\ndata: "+pContent+"\n\n", "data: "+pUsage+"\n\n")
		a, s := mustReplay(t, req, AISBench), mustReplay(t, req, SSE)
		// AISBench skips a block that starts with ':', data line and all.
		if got := classesOf(a); got != "role comment usage_only" || len(a.TimePointsNs) != 3 {
			t.Errorf("aisbench: %s, %d time points", got, len(a.TimePointsNs))
		}
		// WHATWG drops the comment line only.
		if got := classesOf(s); got != "role content usage_only" || len(s.TimePointsNs) != 4 {
			t.Errorf("sse: %s, %d time points", got, len(s.TimePointsNs))
		}
	})
	t.Run("event field", func(t *testing.T) {
		req := mkReq("event: message\ndata: "+pContent+"\n\n", "data: "+pUsage+"\n\n")
		a, s := mustReplay(t, req, AISBench), mustReplay(t, req, SSE)
		// "data:" is not a prefix of the block: json.loads fails, the retry
		// fails the same way, the time points are cleared.
		if a.Success || len(a.TimePointsNs) != 0 || a.Events[0].Class != ClassMalformed ||
			!strings.Contains(a.ErrorInfo, "After 2 retries") {
			t.Errorf("aisbench: %+v", a)
		}
		if !s.Success || s.Events[0].Class != ClassContent || s.Events[0].EventType != "message" || len(s.TimePointsNs) != 3 {
			t.Errorf("sse: %+v", s)
		}
	})
	t.Run("multi-line data", func(t *testing.T) {
		req := mkReq("data: {\"choices\":[{\"delta\":\ndata: {\"content\":\"a\"}}]}\n\n", "data: "+pUsage+"\n\n")
		a, s := mustReplay(t, req, AISBench), mustReplay(t, req, SSE)
		if a.Success || a.Events[0].Class != ClassMalformed {
			t.Errorf("aisbench: success %v, %s", a.Success, classesOf(a))
		}
		if !s.Success || classesOf(s) != "content usage_only" {
			t.Errorf("sse: success %v, %s", s.Success, classesOf(s))
		}
	})
	t.Run("empty data", func(t *testing.T) {
		req := mkReq("data: "+pContent+"\n\n", "data:\n\n", "data: "+pUsage+"\n\n")
		a, s := mustReplay(t, req, AISBench), mustReplay(t, req, SSE)
		if a.Success || len(a.TimePointsNs) != 0 {
			t.Errorf("aisbench: success %v, time points %v", a.Success, a.TimePointsNs)
		}
		// A generic client dispatches "" and reads on.
		if !s.Success || classesOf(s) != "content malformed usage_only" || len(s.TimePointsNs) != 4 {
			t.Errorf("sse: success %v, %s, %v", s.Success, classesOf(s), s.TimePointsNs)
		}
	})
	t.Run("CR-only framing", func(t *testing.T) {
		req := mkReq("data: "+pContent+"\r\r", "data: "+pContent+"\r\r", "data: "+pUsage+"\r\r")
		end := int64(1_050_000_000)
		req.EndNs = &end
		a, s := mustReplay(t, req, AISBench), mustReplay(t, req, SSE)
		// aiohttp's readline waits for \n: everything arrives at the end.
		if want := []int64{1_000_000_000, end, end, end}; !equalInts(a.TimePointsNs, want) {
			t.Errorf("aisbench time points %v, want %v", a.TimePointsNs, want)
		}
		if want := []int64{1_000_000_000, 1_001_000_000, 1_002_000_000, 1_003_000_000}; !equalInts(s.TimePointsNs, want) {
			t.Errorf("sse time points %v, want %v", s.TimePointsNs, want)
		}
	})
	t.Run("no blank line at the end", func(t *testing.T) {
		req := mkReq("data: "+pContent+"\n\n", "data: "+pUsage)
		end := int64(1_070_000_000)
		req.EndNs = &end
		a, s := mustReplay(t, req, AISBench), mustReplay(t, req, SSE)
		// iter_lines yields what is pending at the end of the body.
		if want := []int64{1_000_000_000, 1_001_000_000, end}; !equalInts(a.TimePointsNs, want) || *a.InputTokens != 5 {
			t.Errorf("aisbench time points %v, want %v", a.TimePointsNs, want)
		}
		// WHATWG discards an event the stream ends in.
		if want := []int64{1_000_000_000, 1_001_000_000}; !equalInts(s.TimePointsNs, want) || s.Bytes[BucketIgnored] != int64(len("data: "+pUsage)) {
			t.Errorf("sse time points %v (want %v), buckets %s", s.TimePointsNs, want, bytesOf(s.Bytes))
		}
	})
}

func classesOf(r *Result) string {
	var s []string
	for _, e := range r.Events {
		s = append(s, e.Class.String())
	}
	return strings.Join(s, " ")
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRequestOutcomes(t *testing.T) {
	ptr := func(s string) *string { return &s }
	i64 := func(v int64) *int64 { return &v }
	t.Run("status 404", func(t *testing.T) {
		req := mkReq(`{"error":"no such model"}`, "\n\ndata: "+pUsage+"\n\n")
		st := int32(404)
		req.HTTPStatus = &st
		for _, f := range []Framer{AISBench, SSE} {
			res := mustReplay(t, req, f)
			if res.Success || res.ErrorInfo != "Not Found" || !equalInts(res.TimePointsNs, []int64{req.T0Ns}) ||
				res.TokenSource != "unknown" || res.Events[len(res.Events)-1].Recorded {
				t.Errorf("%s: %+v", f, res)
			}
		}
	})
	t.Run("no response", func(t *testing.T) {
		req := &trace.Request{RequestID: "r", T0Ns: 5, Error: ptr("connection refused"), InputTokens: i64(7)}
		res := mustReplay(t, req, AISBench)
		if res.Success || res.TimePointsNs == nil || len(res.TimePointsNs) != 0 ||
			res.ErrorInfo != "After 2 retries, request failed with exception: connection refused" {
			t.Errorf("%+v", res)
		}
		if res.TokenSource != "trace" || *res.InputTokens != 7 || res.OutputTokens != nil {
			t.Errorf("tokens %v %v %s", res.InputTokens, res.OutputTokens, res.TokenSource)
		}
	})
	t.Run("transport error after done", func(t *testing.T) {
		// [DONE] breaks the loop before the connection error surfaces.
		req := mkReq("data: "+pContent+"\n\n", "data: [DONE]\n\n", "data: {")
		req.Error = ptr("reset")
		if res := mustReplay(t, req, AISBench); !res.Success || len(res.TimePointsNs) != 2 {
			t.Errorf("%+v", res)
		}
	})
	t.Run("transport error", func(t *testing.T) {
		req := mkReq("data: "+pContent+"\n\n", "data: "+pContent)
		req.Error = ptr("reset")
		a := mustReplay(t, req, AISBench)
		if a.Success || len(a.TimePointsNs) != 0 || a.Events[0].Recorded {
			t.Errorf("aisbench %+v", a)
		}
		s := mustReplay(t, req, SSE)
		if s.Success || s.ErrorInfo != "reset" || len(s.TimePointsNs) != 2 {
			t.Errorf("sse %+v", s)
		}
	})
	t.Run("only done", func(t *testing.T) {
		res := mustReplay(t, mkReq("data: [DONE]\n\n"), AISBench)
		if res.Success || res.ErrorInfo != errChunkSize || len(res.TimePointsNs) != 1 {
			t.Errorf("%+v", res)
		}
	})
	t.Run("time points given", func(t *testing.T) {
		req := &trace.Request{RequestID: "r", TimePointsS: []float64{1.5, 1.75, 2}, OutputTokens: i64(3)}
		res := mustReplay(t, req, AISBench)
		if !res.Success || res.TimePointsNs != nil || len(res.TimePointsS) != 3 || res.TimePointsS[1] != 1.75 || *res.OutputTokens != 3 {
			t.Errorf("%+v", res)
		}
		req.TimePointsS = req.TimePointsS[:1]
		if res := mustReplay(t, req, AISBench); res.Success || res.ErrorInfo != errChunkSize {
			t.Errorf("%+v", res)
		}
	})
	t.Run("last truthy usage wins", func(t *testing.T) {
		req := mkReq("data: "+pUsage+"\n\n",
			`data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":3}}}`+"\n\n",
			`data: {"choices":[],"usage":{}}`+"\n\n", `data: {"choices":[],"usage":null}`+"\n\n")
		req.OutputTokens = i64(99)
		res := mustReplay(t, req, AISBench)
		if *res.InputTokens != 9 || *res.OutputTokens != 4 || res.TokenSource != "usage" {
			t.Errorf("tokens %d %d %s", *res.InputTokens, *res.OutputTokens, res.TokenSource)
		}
		if u := res.Events[1].Usage; u == nil || u.CachedTokens == nil || *u.CachedTokens != 3 {
			t.Errorf("usage %+v", u)
		}
		if res.Events[2].Usage != nil || res.Events[3].Usage != nil || res.Events[2].Class != ClassMetadataOnly {
			t.Errorf("falsy usage kept: %+v %+v", res.Events[2], res.Events[3])
		}
	})
	t.Run("usage without completion tokens", func(t *testing.T) {
		req := mkReq(`data: {"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":4}}` + "\n\n")
		req.OutputTokens = i64(2)
		res := mustReplay(t, req, AISBench)
		if *res.InputTokens != 4 || *res.OutputTokens != 2 || res.TokenSource != "mixed" {
			t.Errorf("tokens %d %d %s", *res.InputTokens, *res.OutputTokens, res.TokenSource)
		}
	})
}

func TestNames(t *testing.T) {
	want := "role reasoning content tool_call finish usage_only metadata_only done comment after_done malformed error"
	var got []string
	for _, c := range Classes {
		got = append(got, c.String())
	}
	if strings.Join(got, " ") != want {
		t.Errorf("classes %v", got)
	}
	got = got[:0]
	for _, b := range Buckets {
		got = append(got, b.String())
	}
	if strings.Join(got, " ") != want+" framing ignored" {
		t.Errorf("buckets %v", got)
	}
	if len(Buckets) != int(numBuckets) || len(Classes) != int(numClasses) {
		t.Errorf("%d buckets, %d classes", len(Buckets), len(Classes))
	}
}

// TestFramersOnCases runs both framers over the oracle's cases and pins
// every case where they differ, with the reason.
func TestFramersOnCases(t *testing.T) {
	type view struct {
		success bool
		points  int
		classes string
	}
	differ := map[string]struct {
		why      string
		ais, sse view
	}{
		"http_500": {"the error body has no line end: iter_lines yields it at the end, WHATWG discards it",
			view{false, 1, "error"}, view{false, 1, ""}},
		"cr_only": {"same events; aiohttp's readline delivers them all at the end (time points differ)",
			view{true, 7, "role content content content finish usage_only done"}, view{true, 7, "role content content content finish usage_only done"}},
		"crlf_split_across_reads": {"a CR ending a read completes the WHATWG line; aiohttp waits for the LF (time points differ)",
			view{true, 4, "role content usage_only done"}, view{true, 4, "role content usage_only done"}},
		"comment_inside_data_block": {"AISBench skips the whole block that starts with ':'",
			view{true, 4, "role comment content usage_only done"}, view{true, 5, "role content content usage_only done"}},
		"event_field_lines": {"AISBench parses 'event: ...\\ndata: {...}' as JSON",
			view{false, 0, "malformed malformed usage_only done"}, view{true, 4, "role content usage_only done"}},
		"multiline_data": {"AISBench removes one 'data:' only; WHATWG joins data lines",
			view{false, 0, "role malformed usage_only done"}, view{true, 4, "role content usage_only done"}},
		"empty_data_line": {"json.loads('') raises; an SSE client reads on",
			view{false, 0, "role malformed content usage_only done"}, view{true, 5, "role malformed content usage_only done"}},
		"json_error_mid_stream": {"a JSON error fails AISBench's request",
			view{false, 0, "role content malformed usage_only done"}, view{true, 5, "role content malformed usage_only done"}},
		"no_trailing_newline": {"the last event has no blank line: AISBench yields pending at the end, WHATWG discards it",
			view{true, 4, "role content usage_only"}, view{true, 3, "role content"}},
		"done_without_newline": {"[DONE] without a blank line is never dispatched by WHATWG",
			view{true, 4, "role content usage_only done"}, view{true, 4, "role content usage_only"}},
		"unicode_whitespace_and_no_space": {"Python's str.strip removes U+00A0 and U+3000; WHATWG drops one U+0020 only",
			view{true, 4, "role content usage_only done"}, view{true, 4, "role malformed usage_only done"}},
		"completions_text": {"the chat client's item[\"delta\"] raises KeyError on completions chunks",
			view{false, 0, "content usage_only done"}, view{true, 3, "content usage_only done"}},
		"invalid_utf8_in_comment": {"AISBench decodes every block, comments included, before skipping them",
			view{false, 0, "role comment content usage_only done"}, view{true, 4, "role comment content usage_only done"}},
		"transport_error_mid_stream": {"AISBench clears its time points after the failed retries; the cut-off last line is framed by iter_lines only",
			view{false, 0, "role content malformed"}, view{false, 3, "role content"}},
	}
	viewOf := func(r *Result) view { return view{r.Success, len(r.TimePointsNs), classesOf(r)} }
	for _, req := range loadJSONL(t, "testdata/cases.jsonl") {
		a, s := mustReplay(t, req, AISBench), mustReplay(t, req, SSE)
		d, ok := differ[req.RequestID]
		same := viewOf(a) == viewOf(s) && equalInts(a.TimePointsNs, s.TimePointsNs)
		switch {
		case !ok && !same:
			t.Errorf("%s: framers differ: aisbench %+v, sse %+v", req.RequestID, viewOf(a), viewOf(s))
		case ok && same:
			t.Errorf("%s: framers agree, expected them not to (%s)", req.RequestID, d.why)
		case ok && (viewOf(a) != d.ais || viewOf(s) != d.sse):
			t.Errorf("%s (%s):\n aisbench %+v, want %+v\n sse %+v, want %+v", req.RequestID, d.why, viewOf(a), d.ais, viewOf(s), d.sse)
		}
	}
}

func TestErrorInfo(t *testing.T) {
	res := mustReplay(t, mkReq("data: "+pContent+"\n\n", "data: {\n\n"), AISBench)
	// Checked against str() of AISBench's real AISBenchValueError.
	want := "After 2 retries, request failed with exception: AISBenchValueError: " +
		"[\x1b[1m\x1b[41m\x1b[33mMODEL-DATA-003\x1b[0m]\x1b[1m\x1b[31mparse text response invalid format\x1b[0m. " +
		"Unexpected response format. Please check 'error_info' in ***_failed.jsonl for more information. | Visit " +
		"\x1b[4m\x1b[35mhttps://ais-bench-benchmark.readthedocs.io/zh-cn/latest/faqs/error_codes.html#model-data-003\x1b[0m for further help."
	if res.ErrorInfo != want {
		t.Errorf("error_info %q", res.ErrorInfo)
	}
	res = mustReplay(t, mkReq("data: "+pContent+"\n\n", ": bad \xff\xfe\n\n"), AISBench)
	if want := "After 2 retries, request failed with exception: UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 6: invalid start byte"; res.ErrorInfo != want {
		t.Errorf("error_info %q", res.ErrorInfo)
	}
	res = mustReplay(t, mkReq(`data: {"choices":[{"text":"a"}]}`+"\n\n"), AISBench)
	if want := "After 2 retries, request failed with exception: KeyError: 'delta'"; res.ErrorInfo != want {
		t.Errorf("error_info %q", res.ErrorInfo)
	}
	if _, err := Replay(mkReq(), Options{Framer: "html"}); err == nil {
		t.Error("unknown framer accepted")
	}
}

// A Replayer's results stay valid after it replays the next request.
func TestReplayerReuse(t *testing.T) {
	var r Replayer
	first, err := r.Replay(mkReq("event: a\ndata: "+pContent+"\n\n", "data: "+pUsage+"\n\n"), Options{Framer: SSE})
	if err != nil {
		t.Fatal(err)
	}
	before := classesOf(first) + first.Events[0].EventType
	if _, err := r.Replay(mkReq("event: b\ndata: "+pRole+"\n\n", ": x\n\n"), Options{Framer: SSE}); err != nil {
		t.Fatal(err)
	}
	if after := classesOf(first) + first.Events[0].EventType; after != before || *first.InputTokens != 5 {
		t.Errorf("first result changed: %q, was %q", after, before)
	}
}
