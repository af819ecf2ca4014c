// Package openaibody reads what benchmark tools keep of an OpenAI-compatible
// request body.
package openaibody

import (
	"encoding/json"
	"strings"
)

// Prompt is the prompt of a request body — the last user message's text
// (a string, or its text parts joined) or the completions prompt — or "" when
// the body holds neither. The body may also be a JSON string holding the
// object, as some tools store it.
func Prompt(body []byte) string {
	var s string
	if json.Unmarshal(body, &s) == nil {
		body = []byte(s)
	}
	var b struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Prompt json.RawMessage `json:"prompt"`
	}
	if json.Unmarshal(body, &b) != nil {
		return ""
	}
	for i := len(b.Messages) - 1; i >= 0; i-- {
		if b.Messages[i].Role != "user" {
			continue
		}
		var c string
		if json.Unmarshal(b.Messages[i].Content, &c) == nil {
			return c
		}
		var parts []struct{ Type, Text string }
		if json.Unmarshal(b.Messages[i].Content, &parts) == nil {
			var t strings.Builder
			for _, p := range parts {
				if p.Type == "text" {
					t.WriteString(p.Text)
				}
			}
			return t.String()
		}
		return ""
	}
	var p string
	if json.Unmarshal(b.Prompt, &p) == nil {
		return p
	}
	return ""
}
