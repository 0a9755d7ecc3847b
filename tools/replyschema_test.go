package tools

import (
	"encoding/json"
	"testing"

	"github.com/lyrad/lyrad/session"
)

// tools/list carries output schemas as field lists (wireOut); the types stay
// in the Go schemas. A reply's fields are of the types its Go schema says,
// and every field it answers is listed there or is one the instructions say
// once (the envelope, actShared).
func TestRepliesMatchSchemas(t *testing.T) {
	f := newFake(t)
	status := int64(200)
	f.click = func(session.ActOptions) (*session.ActResult, error) {
		return &session.ActResult{URL: "https://a.test/next", Title: "Next", TabCount: 2, Selector: "#go", Matches: 3,
			NewTab: true, Navigated: true, Element: &session.ElementInfo{Tag: "button", Role: "button", Name: "Go"},
			Dialogs: []session.DialogRecord{{Type: "alert", Message: "hi", Accepted: true, By: "default"}},
			Load:    &session.LoadInfo{HTTPStatus: &status}}, nil
	}
	byName := map[string]*tool{}
	for _, tl := range all(Deps{}) {
		byName[tl.name] = tl
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"click", map[string]any{"selector": "#go"}},
		{"type_text", map[string]any{"selector": "#q", "text": "hello"}},
		{"navigate", map[string]any{"url": "https://a.test/"}},
		{"set_editor", map[string]any{"content": "x"}},
	} {
		env := invoke(t, f, c.tool, c.args)
		if env["status"] != "ok" {
			t.Fatalf("%s: %v", c.tool, env)
		}
		schema := byName[c.tool].output
		wire := wireOut(schema)
		for k, v := range env {
			if k == "status" || k == "hint" || k == "error" {
				continue
			}
			s, ok := schema[k].(map[string]any)
			if !ok {
				t.Errorf("%s answers %q, not in its output schema", c.tool, k)
				continue
			}
			if _, listed := wire[k]; !listed && !contains(actShared, k) {
				t.Errorf("%s: %q is left out of tools/list", c.tool, k)
			}
			if !ofType(v, s["type"]) {
				t.Errorf("%s: %q is %T (%v), its schema says %v", c.tool, k, v, v, s["type"])
			}
		}
	}
}

// ofType says whether v, as the reply's JSON carries it, is of the JSON
// Schema type (a name or a list of names).
func ofType(v any, typ any) bool {
	if names, ok := typ.([]string); ok {
		for _, n := range names {
			if ofType(v, n) {
				return true
			}
		}
		return false
	}
	b, _ := json.Marshal(v)
	var back any
	_ = json.Unmarshal(b, &back)
	switch typ {
	case "string":
		_, ok := back.(string)
		return ok
	case "boolean":
		_, ok := back.(bool)
		return ok
	case "integer":
		n, ok := back.(float64)
		return ok && n == float64(int64(n))
	case "array":
		_, ok := back.([]any)
		return ok
	case "object":
		_, ok := back.(map[string]any)
		return ok
	case "null":
		return back == nil
	}
	return false
}
