// Package openaibody reads the prompt of an OpenAI-compatible request body:
// strictly for a server answering the request (serve), leniently for the
// importers of other tools' files.
package openaibody

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// request is what a prompt is read from.
type request struct {
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Prompt json.RawMessage `json:"prompt"`
}

var errNoUserMessage = errors.New("messages: want a user message")

func parse(body []byte) (request, error) {
	var r request
	if err := json.Unmarshal(body, &r); err != nil {
		return r, fmt.Errorf("request body: want a JSON object: %v", err)
	}
	return r, nil
}

// ChatPrompt is the prompt of a chat completions body: the text of the last
// user message (string content, or its text parts joined).
func ChatPrompt(body []byte) (string, error) {
	r, err := parse(body)
	if err != nil {
		return "", err
	}
	return r.chat()
}

func (r *request) chat() (string, error) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			return s, nil
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			return "", errors.New("messages[].content: want a string or a list of parts")
		}
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" {
				b.WriteString(p.Text)
			}
		}
		return b.String(), nil
	}
	return "", errNoUserMessage
}

// CompletionsPrompt is the prompt of a completions body: prompt, the first
// one if a list.
func CompletionsPrompt(body []byte) (string, error) {
	r, err := parse(body)
	if err != nil {
		return "", err
	}
	return r.completions()
}

func (r *request) completions() (string, error) {
	var s string
	if json.Unmarshal(r.Prompt, &s) == nil {
		return s, nil
	}
	var list []string
	if json.Unmarshal(r.Prompt, &list) == nil && len(list) > 0 {
		return list[0], nil
	}
	return "", errors.New("prompt: want a string or a list of strings")
}

// Prompt is the prompt of a request body whatever its endpoint, or "" when
// it has none: the last user message's (ChatPrompt) when the body has one,
// else its prompt (CompletionsPrompt). The body may also be a JSON string
// holding the object, as some tools store it.
func Prompt(body []byte) string {
	var s string
	if json.Unmarshal(body, &s) == nil {
		body = []byte(s)
	}
	r, err := parse(body)
	if err != nil {
		return ""
	}
	p, err := r.chat()
	if errors.Is(err, errNoUserMessage) {
		p, err = r.completions()
	}
	if err != nil {
		return ""
	}
	return p
}
