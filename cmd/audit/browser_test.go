package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color/palette"
	"image/draw"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The HTML report in a real browser: headless Chromium, driven through the
// DevTools protocol over --remote-debugging-pipe (fd 3: commands in, fd 4:
// replies and events out, each message JSON ended by a NUL byte), with no
// dependency beyond the standard library. The test fails on any console
// message of level error, any uncaught exception, any network request other
// than the report file itself, and any chart that did not draw.
//
// Chromium missing: the test skips, unless SSEAUDIT_REQUIRE_BROWSER=1.
// go test ./cmd/audit -run TestBrowser -update rewrites docs/report.png.

func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("SSEAUDIT_REQUIRE_BROWSER") == "1" {
		t.Fatal("no chromium on PATH and SSEAUDIT_REQUIRE_BROWSER=1 (Debian: apt-get install -y chromium)")
	}
	t.Skip("skipping the browser test: no chromium, chromium-browser or google-chrome on PATH (Debian: apt-get install -y chromium; SSEAUDIT_REQUIRE_BROWSER=1 makes this a failure)")
	return ""
}

// cdp is a DevTools protocol client over Chromium's debugging pipe.
type cdp struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	nextID int

	mu      sync.Mutex
	replies map[int]chan cdpMessage
	events  []cdpMessage
	evCh    chan struct{}
	readErr error
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

func startChromium(t *testing.T, bin string) *cdp {
	t.Helper()
	cmdR, cmdW, err := os.Pipe() // we write commands, Chromium reads fd 3
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe() // Chromium writes fd 4, we read
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--hide-scrollbars", "--mute-audio",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	cmdR.Close()
	outW.Close()
	c := &cdp{t: t, cmd: cmd, in: cmdW, replies: map[int]chan cdpMessage{}, evCh: make(chan struct{}, 1)}
	go c.read(outR)
	t.Cleanup(func() {
		cmdW.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill() // only the process this test started
			<-done
		}
		if t.Failed() {
			var keep []string
			for _, l := range strings.Split(stderr.String(), "\n") {
				if !strings.Contains(l, "dbus") {
					keep = append(keep, l)
				}
			}
			t.Logf("chromium stderr (D-Bus noise left out):\n%s", lastLines(strings.Join(keep, "\n"), 20))
		}
	})
	return c
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func (c *cdp) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			c.mu.Lock()
			c.readErr = err
			for _, ch := range c.replies {
				close(ch)
			}
			c.replies = map[int]chan cdpMessage{}
			c.mu.Unlock()
			return
		}
		var m cdpMessage
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			continue
		}
		c.mu.Lock()
		if m.ID != 0 {
			if ch, ok := c.replies[m.ID]; ok {
				ch <- m
				delete(c.replies, m.ID)
			}
		} else {
			c.events = append(c.events, m)
			select {
			case c.evCh <- struct{}{}:
			default:
			}
		}
		c.mu.Unlock()
	}
}

// call sends a command (to a session when sessionID is set) and waits for
// its reply.
func (c *cdp) call(sessionID, method string, params any, result any) error {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan cdpMessage, 1)
	c.replies[id] = ch
	rerr := c.readErr
	c.mu.Unlock()
	if rerr != nil {
		return fmt.Errorf("%s: chromium's pipe closed: %v", method, rerr)
	}
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if sessionID != "" {
		msg["sessionId"] = sessionID
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := c.in.Write(append(raw, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: chromium closed the pipe", method)
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-time.After(20 * time.Second):
		return fmt.Errorf("%s: no reply in 20 s", method)
	}
}

// waitEvent waits for an event of the session.
func (c *cdp) waitEvent(sessionID, method string, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		c.mu.Lock()
		for _, e := range c.events {
			if e.Method == method && e.SessionID == sessionID {
				c.mu.Unlock()
				return nil
			}
		}
		c.mu.Unlock()
		select {
		case <-c.evCh:
		case <-deadline:
			return fmt.Errorf("no %s in %v", method, timeout)
		}
	}
}

func (c *cdp) eventsOf(sessionID, method string) []cdpMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []cdpMessage
	for _, e := range c.events {
		if e.Method == method && e.SessionID == sessionID {
			out = append(out, e)
		}
	}
	return out
}

// chartInfo is what the page says about each chart after it rendered.
type chartInfo struct {
	ID       string  `json:"id"`
	Shapes   int     `json:"shapes"`   // path, line, rect, circle elements
	Drawn    int     `json:"drawn"`    // of which with a non-empty bounding box
	Width    float64 `json:"width"`    // rendered size, CSS pixels
	Height   float64 `json:"height"`   //
	PathData int     `json:"pathData"` // characters of path data
}

// openReport loads file in a fresh tab and returns the charts it drew, the
// whole page as PNG, and the tab's session.
func openReport(t *testing.T, c *cdp, file string, width int) ([]chartInfo, []byte, string) {
	t.Helper()
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := c.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		t.Fatal(err)
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		t.Fatal(err)
	}
	s := att.SessionID
	for _, m := range []string{"Runtime.enable", "Log.enable", "Network.enable", "Page.enable"} {
		if err := c.call(s, m, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.call(s, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		t.Fatal(err)
	}
	url := "file://" + file
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := c.call(s, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		t.Fatal(err)
	}
	if nav.ErrorText != "" {
		t.Fatalf("navigate %s: %s", url, nav.ErrorText)
	}
	if err := c.waitEvent(s, "Page.loadEventFired", 20*time.Second); err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	expr := `JSON.stringify([...document.querySelectorAll("svg.chart")].map(s => {
		const shapes = [...s.querySelectorAll("path, line, rect, circle")];
		const r = s.getBoundingClientRect();
		return {id: s.id, shapes: shapes.length,
			drawn: shapes.filter(e => { const b = e.getBBox(); return b.width > 0 || b.height > 0; }).length,
			width: r.width, height: r.height,
			pathData: [...s.querySelectorAll("path")].reduce((n, p) => n + (p.getAttribute("d") || "").length, 0)};
	}))`
	if err := c.call(s, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &ev); err != nil {
		t.Fatal(err)
	}
	if len(ev.ExceptionDetails) > 0 {
		t.Fatalf("evaluating the chart check: %s", ev.ExceptionDetails)
	}
	var charts []chartInfo
	if err := json.Unmarshal([]byte(ev.Result.Value), &charts); err != nil {
		t.Fatalf("chart check: %v in %q", err, ev.Result.Value)
	}
	var height struct {
		Result struct {
			Value float64 `json:"value"`
		} `json:"result"`
	}
	if err := c.call(s, "Runtime.evaluate", map[string]any{"expression": "document.documentElement.scrollHeight", "returnByValue": true}, &height); err != nil {
		t.Fatal(err)
	}
	var shot struct {
		Data string `json:"data"`
	}
	if err := c.call(s, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true, "fromSurface": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": width, "height": height.Result.Value, "scale": 1}}, &shot); err != nil {
		t.Fatal(err)
	}
	img, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		t.Fatal(err)
	}
	return charts, img, s
}

// layoutJS measures the page as the browser laid it out (every <details>
// opened first): elements whose box reaches past the viewport, boxes whose
// content is wider than they are and so hidden behind a scroll or a clip,
// chart text cut by its chart's edge, chart text whose box overlaps another
// text's, the C label over a mark of the in-flight chart, and timeline
// notes shortened with an ellipsis. It runs in the test's DevTools session:
// the page has no script.
const layoutJS = `(() => {
	for (const d of document.querySelectorAll("details")) d.open = true;
	const vw = document.documentElement.clientWidth, out = [];
	const f = x => Math.round(x * 10) / 10;
	const name = e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
		(e.getAttribute("class") ? "." + e.getAttribute("class").trim().split(/ +/).join(".") : "") +
		' "' + (e.textContent || "").trim().replace(/\s+/g, " ").slice(0, 60) + '"';
	const box = r => "[" + f(r.left) + ", " + f(r.right) + "] x [" + f(r.top) + ", " + f(r.bottom) + "]";
	const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
	if (document.documentElement.scrollWidth > vw) out.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " px wide in a " + vw + " px viewport");
	let past = null, hidden = null; // the last reported: their insides are not listed again
	for (const e of document.body.querySelectorAll("*")) {
		const r = e.getBoundingClientRect();
		if (r.width === 0 && r.height === 0) continue;
		if ((r.right > vw + 0.5 || r.left < -0.5) && !(past && past.contains(e))) {
			out.push("past the viewport (" + vw + " px): " + name(e) + " spans " + f(r.left) + " to " + f(r.right));
			past = e;
		}
		if (!(e instanceof SVGElement) && getComputedStyle(e).overflowX !== "visible" && e.scrollWidth > e.clientWidth + 1 && !(hidden && hidden.contains(e))) {
			out.push("hidden behind a scroll or clip: " + name(e) + " holds " + e.scrollWidth + " px in " + e.clientWidth);
			hidden = e;
		}
	}
	for (const svg of document.querySelectorAll("svg.chart")) {
		const b = svg.getBoundingClientRect();
		const texts = [...svg.querySelectorAll("text")].map(e => ({e, r: e.getBoundingClientRect()})).filter(x => x.r.width > 0);
		for (const {e, r} of texts) {
			if (r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5)
				out.push(svg.id + ": cut by the chart's edge " + box(b) + ": " + name(e) + " " + box(r));
			if (e.matches(".info, .info2") && e.textContent.includes("\u2026")) out.push(svg.id + ": a note cut short: " + name(e));
		}
		for (let i = 0; i < texts.length; i++)
			for (let j = i + 1; j < texts.length; j++)
				if (overlap(texts[i].r, texts[j].r))
					out.push(svg.id + ": labels overlap: " + name(texts[i].e) + " " + box(texts[i].r) + " and " + name(texts[j].e) + " " + box(texts[j].r));
		// A mark's line is as wide as its stroke: a pixel each side.
		const wide = r => ({left: r.left - 1, right: r.right + 1, top: r.top, bottom: r.bottom});
		for (const c of svg.querySelectorAll(".clabel"))
			for (const m of svg.querySelectorAll("g[class^=mark] line, g[class^=mark] circle"))
				if (overlap(c.getBoundingClientRect(), wide(m.getBoundingClientRect())))
					out.push(svg.id + ": the C label " + box(c.getBoundingClientRect()) + " over the " + m.parentNode.getAttribute("class") + " " + m.tagName + " " + box(m.getBoundingClientRect()));
	}
	return JSON.stringify(out);
})()`

// layoutProblems runs layoutJS in a tab.
func layoutProblems(t *testing.T, c *cdp, session string) []string {
	t.Helper()
	var ev struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	if err := c.call(session, "Runtime.evaluate", map[string]any{"expression": layoutJS, "returnByValue": true}, &ev); err != nil {
		t.Fatal(err)
	}
	if len(ev.ExceptionDetails) > 0 {
		t.Fatalf("evaluating the layout check: %s", ev.ExceptionDetails)
	}
	var probs []string
	if err := json.Unmarshal([]byte(ev.Result.Value), &probs); err != nil {
		t.Fatalf("layout check: %v in %q", err, ev.Result.Value)
	}
	return probs
}

// browserProblems lists a tab's console errors, exceptions and network
// requests other than the page itself.
func browserProblems(c *cdp, session, pageURL string) []string {
	var out []string
	for _, e := range c.eventsOf(session, "Runtime.consoleAPICalled") {
		var p struct {
			Type string `json:"type"`
			Args []struct {
				Value any `json:"value"`
			} `json:"args"`
		}
		json.Unmarshal(e.Params, &p)
		if p.Type == "error" || p.Type == "assert" {
			out = append(out, fmt.Sprintf("console.%s: %v", p.Type, p.Args))
		}
	}
	for _, e := range c.eventsOf(session, "Runtime.exceptionThrown") {
		out = append(out, "exception: "+string(e.Params))
	}
	for _, e := range c.eventsOf(session, "Log.entryAdded") {
		var p struct {
			Entry struct {
				Level, Text, URL string
			} `json:"entry"`
		}
		json.Unmarshal(e.Params, &p)
		if p.Entry.Level == "error" {
			out = append(out, fmt.Sprintf("log error: %s %s", p.Entry.Text, p.Entry.URL))
		}
	}
	for _, e := range c.eventsOf(session, "Network.requestWillBeSent") {
		var p struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		json.Unmarshal(e.Params, &p)
		if p.Request.URL != pageURL {
			out = append(out, "network request: "+p.Request.URL)
		}
	}
	return out
}

func TestBrowserHTMLReport(t *testing.T) {
	bin := findChromium(t)
	dir := t.TempDir()
	c := startChromium(t, bin)
	// Generated traces: a chat run of 200 requests (10-30 ms intervals,
	// findings naming requests in the timelines' notes, AISBench's table
	// with five-digit sample counts), and a long run at C = 64 whose
	// window ends near the run's end, where the "C = 64" label is drawn.
	for _, g := range []struct{ name, n, c, out string }{{"chat", "200", "8", "64"}, {"c64", "3000", "64", "4"}} {
		if _, stderr, code := runCLI(t, "", "gen", "--profile", "chat", "--requests", g.n, "--concurrency", g.c, "--output-tokens", g.out,
			"--input-tokens", "8", "--seed", "1", "-o", filepath.Join(dir, g.name+".jsonl")); code != 0 {
			t.Fatalf("gen %s: exit %d: %s", g.name, code, stderr)
		}
	}
	cases := []struct {
		name, trace string
		shot        bool // the README's screenshot
	}{
		{"basic", "testdata/traces/basic.jsonl", true},
		{"usage-tail", "testdata/traces/findings/usage_tail.jsonl", false},
		{"no-window", "testdata/traces/findings/no_window.jsonl", false},
		{"time-points", "whatif/testdata/time_points.jsonl", false},
		{"chat", filepath.Join(dir, "chat.jsonl"), false},
		{"c64", filepath.Join(dir, "c64.jsonl"), false},
	}
	for _, tc := range cases {
		file, err := filepath.Abs(filepath.Join(dir, tc.name+".html"))
		if err != nil {
			t.Fatal(err)
		}
		if _, stderr, code := runCLI(t, "", "report", "--format", "html", "-o", file, tc.trace); code != 0 {
			t.Fatalf("%s: report exit %d: %s", tc.name, code, stderr)
		}
		for _, width := range []int{1280, 1000} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, width), func(t *testing.T) {
				checkReportPage(t, c, file, width, tc.shot && width == 1280)
			})
		}
	}
}

// checkReportPage opens a report at a viewport width and checks it: no
// browser problem, every chart drawn, nothing past the viewport or hidden
// behind a scroll, no chart label cut or over another; it is printable.
// shot rewrites docs/report.png under -update.
func checkReportPage(t *testing.T, c *cdp, file string, width int, shot bool) {
	t.Helper()
	dir := filepath.Dir(file)
	name := strings.TrimSuffix(filepath.Base(file), ".html") + "-" + strconv.Itoa(width)
	charts, img, session := openReport(t, c, file, width)
	if probs := layoutProblems(t, c, session); len(probs) > 0 {
		t.Errorf("the page's layout at %d px has %d problem(s):\n%s", width, len(probs), strings.Join(probs, "\n"))
	}
	if probs := browserProblems(c, session, "file://"+file); len(probs) > 0 {
		t.Errorf("the page made %d problem(s):\n%s", len(probs), strings.Join(probs, "\n"))
	}
	want := map[string]bool{"svg-inflight": false, "svg-timelines": false, "svg-intervals-total": false}
	for _, ch := range charts {
		if _, ok := want[ch.ID]; ok {
			want[ch.ID] = true
		}
		if ch.Drawn < 3 || ch.PathData == 0 || ch.Width < 600 || ch.Height < 60 {
			t.Errorf("chart %s did not draw: %+v", ch.ID, ch)
		}
	}
	for id, seen := range want {
		if !seen {
			t.Errorf("chart %s missing (charts: %+v)", id, charts)
		}
	}
	pic, err := png.Decode(bytes.NewReader(img))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := pic.Bounds(); b.Dx() != width || b.Dy() < 2400 {
		t.Errorf("screenshot is %v, want the whole page, %d wide and more than 2400 high", b, width)
	}
	colors := map[uint32]bool{}
	for y := 0; y < pic.Bounds().Dy(); y += 7 {
		for x := 0; x < pic.Bounds().Dx(); x += 7 {
			r, g, b, _ := pic.At(x, y).RGBA()
			colors[r>>8<<16|g>>8<<8|b>>8] = true
		}
	}
	if len(colors) < 20 {
		t.Errorf("screenshot looks blank: %d colours", len(colors))
	}
	// Printable: Chromium prints it to a PDF.
	var pdf struct {
		Data string `json:"data"`
	}
	if err := c.call(session, "Page.printToPDF", map[string]any{"printBackground": true}, &pdf); err != nil {
		t.Fatal(err)
	}
	doc, err := base64.StdEncoding.DecodeString(pdf.Data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(doc, []byte("%PDF-")) || len(doc) < 10000 {
		t.Errorf("printing gave %d bytes starting %q", len(doc), doc[:min(len(doc), 8)])
	}
	os.WriteFile(filepath.Join(dir, name+".png"), img, 0o644)
	os.WriteFile(filepath.Join(dir, name+".pdf"), doc, 0o644)
	if shot && *update {
		// A 256-colour copy: the page is mostly flat colours, and the
		// file a quarter of the size.
		pal := image.NewPaletted(pic.Bounds(), palette.Plan9)
		draw.FloydSteinberg.Draw(pal, pic.Bounds(), pic, image.Point{})
		var small bytes.Buffer
		enc := png.Encoder{CompressionLevel: png.BestCompression}
		if err := enc.Encode(&small, pal); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("docs", "report.png"), small.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBrowserLayoutDetected checks the layout checker: a table wider than
// the viewport, one hidden behind a scroll, labels over each other, a
// label cut by its chart, a C label on a mark and a note cut short must
// all be caught, at 1000 px.
func TestBrowserLayoutDetected(t *testing.T) {
	bin := findChromium(t)
	file, err := filepath.Abs(filepath.Join(t.TempDir(), "crowded.html"))
	if err != nil {
		t.Fatal(err)
	}
	cells := strings.Repeat("<td>1234567.8901</td>", 12)
	page := `<!DOCTYPE html><html><head><style>.scroll { overflow-x: auto; } svg { width: 100%; }</style></head><body>
<table id="wide"><tr>` + cells + `</tr></table>
<div class="scroll"><table id="scrolled"><tr>` + cells + `</tr></table></div>
<svg class="chart" id="svg-x" viewBox="0 0 1100 300"><text x="100" y="50">first label</text><text x="130" y="55">second label</text>
<text x="1090" y="100">cut by the edge</text>
<g class="mark-end"><line x1="500" x2="500" y1="0" y2="300"/><circle cx="500" cy="150" r="5"/></g><text class="clabel" x="520" y="155" text-anchor="end">C = 64</text>
<text class="info2" x="10" y="250">tm: usage_only · role-only-sets-ttft, u…</text></svg></body></html>`
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startChromium(t, bin)
	_, _, session := openReport(t, c, file, 1000)
	joined := strings.Join(layoutProblems(t, c, session), "\n")
	for _, want := range []string{"past the viewport (1000 px): table#wide", "hidden behind a scroll or clip: div.scroll", "labels overlap: text \"first label\"",
		"cut by the chart's edge", "the C label", "over the mark-end circle", "over the mark-end line", "a note cut short"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %q among the problems:\n%s", want, joined)
		}
	}
}

// The page of a chat run (issue 20, item 12) through the CLI, without a
// browser: AISBench's table has its stages one under the other, the
// histograms at least 20 bins across the 10-30 ms intervals, the timelines'
// notes whole.
func TestReportHTMLIssue20(t *testing.T) {
	dir := t.TempDir()
	trace, page := filepath.Join(dir, "chat.jsonl"), filepath.Join(dir, "chat.html")
	if _, stderr, code := runCLI(t, "", "gen", "--profile", "chat", "--requests", "200", "--concurrency", "8", "--seed", "1", "-o", trace); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := runCLI(t, "", "report", "--format", "html", "-o", page, trace)
	if code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("report: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(raw)
	// AISBench's table: a heading row a stage, then 11 columns a row.
	table := html[strings.Index(html, `<h2>AISBench's table`):strings.Index(html, `<h3>Common metrics`)]
	if n := strings.Count(table, `<tr class="stage"><th colspan="11">`); n != 2 {
		t.Errorf("AISBench's table has %d stage heading rows, want 2 of 11 columns", n)
	}
	for _, row := range regexp.MustCompile(`<tr id="row-[^"]*">.*</tr>`).FindAllString(table, -1) {
		if n := strings.Count(row, "<td") + strings.Count(row, "<th"); n != 11 {
			t.Errorf("row of %d cells, want 11: %s", n, row)
		}
	}
	// The histograms: 50 bins a decade, every one of the ITL's drawn.
	for _, stage := range []string{"total", "stable"} {
		chart := regexp.MustCompile(`(?s)<svg class="chart dist" id="svg-intervals-` + stage + `".*?</svg>`).FindString(html)
		bars := regexp.MustCompile(`<path class="bars" [^>]* d="([^"]*)"`).FindStringSubmatch(chart)
		if !strings.Contains(chart, "log scale; 50 bins a decade") || bars == nil || strings.Count(bars[1], "Z") < 20 {
			t.Errorf("%s: the ITL histogram is not 50 bins a decade with 20 bars or more: %.300s", stage, chart)
		}
	}
	// The timelines' notes: nothing shortened, the findings' codes whole.
	timelines := regexp.MustCompile(`(?s)<svg class="chart" id="svg-timelines".*?</svg>`).FindString(html)
	if regexp.MustCompile(`class="info2?"[^>]*>[^<]*…`).MatchString(timelines) {
		t.Error("a timeline note is cut short")
	}
	if !strings.Contains(timelines, "role-only-sets-ttft,") || !strings.Contains(timelines, "usage-tail-sets-end") {
		t.Error("the first request's note does not name both findings that chose it")
	}
}

// TestBrowserProblemsDetected checks the checker: a page that logs a console
// error and requests a network resource must be caught.
func TestBrowserProblemsDetected(t *testing.T) {
	bin := findChromium(t)
	file, err := filepath.Abs(filepath.Join(t.TempDir(), "bad.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := `<!DOCTYPE html><html><head><link rel="stylesheet" href="http://127.0.0.1:9/x.css"></head><body>
<svg class="chart" id="svg-x" viewBox="0 0 10 10"></svg><script>console.error("boom")</script></body></html>`
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startChromium(t, bin)
	charts, _, session := openReport(t, c, file, 800)
	probs := browserProblems(c, session, "file://"+file)
	joined := strings.Join(probs, "\n")
	if !strings.Contains(joined, "console.error") || !strings.Contains(joined, "network request: http://127.0.0.1:9/x.css") {
		t.Errorf("problems not detected; got:\n%s", joined)
	}
	if len(charts) != 1 || charts[0].Drawn != 0 {
		t.Errorf("an empty chart must read as not drawn: %+v", charts)
	}
}
