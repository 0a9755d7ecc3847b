package audit

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestRedact(t *testing.T) {
	in := map[string]any{
		"password":     "hunter2",
		"X-Auth-Token": "abc",
		"apiKey":       "k",
		"api_key":      "k",
		"text":         "typed",
		"promptText":   "p",
		"status_code":  200,
		"statusCode":   201,
		"code":         "KeyA", // bare code: keyboard code, kept
		"auth_code":    "123456",
		"selector":     "#login",
		"url":          "https://alice:s3cret@example.com/path?q=1",
		"context":      "not text",
		"cookies":      []any{map[string]any{"name": "sid", "value": "v"}},
		"nested":       map[string]any{"deeper": map[string]any{"Secret": "x", "keep": "y"}, "values": []any{"a"}},
		"list":         []any{"ftp://u:p@h/", "http://u:p@h/x", map[string]any{"otp": "1", "n": 1.5}},
		"strs":         []string{"https://u@h.example/"},
		"headers":      map[string]string{"Authorization": "Bearer x", "Accept": "*/*"},
		"typed":        struct{ Password, User string }{"pw", "bob"},
		"empty_secret": nil,
		"medium":       "https://medium.com/@someone",
	}
	before, _ := json.Marshal(in)
	out := Redact("click", in)
	after, _ := json.Marshal(in)
	if string(before) != string(after) {
		t.Fatal("input mutated")
	}
	want := map[string]any{
		"password":     Redacted,
		"X-Auth-Token": Redacted,
		"apiKey":       Redacted,
		"api_key":      Redacted,
		"text":         Redacted,
		"promptText":   Redacted,
		"status_code":  200,
		"statusCode":   201,
		"code":         "KeyA",
		"auth_code":    Redacted,
		"selector":     "#login",
		"url":          "https://example.com/path?q=[redacted]",
		"context":      "not text",
		"cookies":      Redacted,
		"nested":       map[string]any{"deeper": map[string]any{"Secret": Redacted, "keep": "y"}, "values": Redacted},
		"list":         []any{"ftp://h/", "http://h/x", map[string]any{"otp": Redacted, "n": 1.5}},
		"strs":         []any{"https://h.example/"},
		"headers":      map[string]any{"Authorization": Redacted, "Accept": "*/*"},
		"typed":        map[string]any{"Password": Redacted, "User": "bob"},
		"empty_secret": nil,
		"medium":       "https://medium.com/@someone",
	}
	for k, v := range want {
		if !reflect.DeepEqual(out[k], v) {
			t.Errorf("%s = %#v, want %#v", k, out[k], v)
		}
	}
	if len(out) != len(want) {
		t.Errorf("key count %d != %d", len(out), len(want))
	}
	if Redact("x", nil) != nil {
		t.Error("nil in, nil out")
	}
}

func TestRedactTools(t *testing.T) {
	for _, tc := range []struct {
		tool, key string
		secret    bool
	}{
		{"type_text", "text", true},
		{"handle_dialog", "prompt_text", true},
		{"handle_dialog", "accept", false},
		{"navigate", "url", false},
		{"press_key", "key", false},
		{"any", "error_code", false},
		{"any", "Set-Cookie", true},
		{"any", "clientSecret", true},
		{"any", "credentials", true},
		{"any", "passwd", true},
		{"any", "innerText", true},
		{"any", "textContent", true},
		{"any", "APIKey", true},
		{"any", "tokenizer_note", true}, // substring rule: accepted over-redaction
	} {
		if got := isSecretKey(toolSecretKeys[tc.tool], tc.key); got != tc.secret {
			t.Errorf("isSecretKey(%q, %q) = %v", tc.tool, tc.key, got)
		}
	}
}

func TestRedactCycle(t *testing.T) {
	m := map[string]any{}
	m["self"] = m
	if _, err := json.Marshal(Redact("x", m)); err != nil {
		t.Fatal(err)
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("type_text", []byte(`{"text":"hi","selector":"#a"}`))
	f.Add("navigate", []byte(`{"url":"https://u:p@example.com/","n":[1,{"token":"x"}]}`))
	f.Add("", []byte(`{"a":{"b":{"c":["http://[::1]:80@x"]}}}`))
	f.Add("x", []byte("not json"))
	f.Fuzz(func(t *testing.T, tool string, data []byte) {
		var args map[string]any
		if json.Unmarshal(data, &args) != nil {
			args = map[string]any{"raw": string(data), string(data): []any{string(data)}}
		}
		before, err := json.Marshal(args)
		if err != nil {
			t.Skip()
		}
		out := Redact(tool, args)
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("output does not marshal: %v", err)
		}
		if after, _ := json.Marshal(args); string(after) != string(before) {
			t.Fatal("input mutated")
		}
		for k, v := range out {
			if v != nil && isSecretKey(toolSecretKeys[tool], k) && v != Redacted {
				t.Fatalf("%q not redacted: %v", k, v)
			}
		}
	})
}
