package openaibody

import "testing"

func TestPrompt(t *testing.T) {
	cases := []struct{ body, want string }{
		{`{"messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"},{"role":"assistant","content":"a"}]}`, "hi"},
		{`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","text":"x"},{"type":"text","text":"b"}]}]}`, "ab"},
		{`{"prompt":"complete me"}`, "complete me"},
		{`{"prompt":["first","second"]}`, "first"}, // as serve reads it
		{`{"messages":[{"role":"user","content":5}],"prompt":"p"}`, ""},
		{`"{\"prompt\":\"wrapped\"}"`, "wrapped"},
		{`{"messages":[{"role":"system","content":"s"}]}`, ""},
		{`not json`, ""},
	}
	for _, c := range cases {
		if got := Prompt([]byte(c.body)); got != c.want {
			t.Errorf("Prompt(%s) = %q, want %q", c.body, got, c.want)
		}
	}
}
