package tools

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestCheckArgsStyles: one checker words each surface's errors as that
// surface always has (lyrad's names what a wrong value was and the fix;
// Playwright MCP's is bare, reads numbers as float64 and refuses a blank
// target), and reads the same values.
func TestCheckArgsStyles(t *testing.T) {
	params := []Param{
		{Name: "target", Kind: "string", Required: true, Description: "What to act on."},
		{Name: "mode", Kind: "string", Enum: []string{"a", "b"}, Default: "a"},
		{Name: "n", Kind: "integer"},
		{Name: "l", Kind: "array"},
		{Name: "o", Kind: "objects"},
	}
	pw := ArgStyle{ObjectHint: "Pass the arguments as an object.", Float: true, EmptyTargetHint: "Pass a ref."}
	cases := []struct {
		st             ArgStyle
		raw            string
		arg, msg, hint string
	}{
		{lyraArgs, `[1]`, "", "arguments must be a JSON object", lyraArgs.ObjectHint},
		{pw, `[1]`, "", "arguments must be a JSON object", "Pass the arguments as an object."},
		{lyraArgs, `{"zz":1}`, "zz", `unknown argument "zz"`, "t takes target, mode, n, l, o."},
		{lyraArgs, `{}`, "target", `missing required argument "target"`, "Pass target (string): What to act on."},
		{pw, `{}`, "target", `missing required argument "target"`, "Pass target (string)."},
		{lyraArgs, `{"target":1}`, "target", "target must be a string, not a number", "Pass it as a JSON string."},
		{pw, `{"target":1}`, "target", "target must be a string", ""},
		{lyraArgs, `{"target":"x","mode":"c"}`, "mode", `mode must be one of a, b, not "c"`, "Use one of: a, b."},
		{pw, `{"target":"x","mode":"c"}`, "mode", `mode must be one of a, b, not "c"`, ""},
		{lyraArgs, `{"target":" "}`, "", "", ""},
		{pw, `{"target":" "}`, "target", "target is empty", "Pass a ref."},
		{lyraArgs, `{"target":"x","n":1.5}`, "n", "n must be an integer, not a number", "Pass a whole number."},
		{pw, `{"target":"x","n":"1"}`, "n", "n must be a number", ""},
		{lyraArgs, `{"target":"x","l":[1]}`, "l", "l must hold strings, not a number", "Pass a JSON array of strings."},
		{pw, `{"target":"x","l":[1]}`, "l", "l must be an array of strings", ""},
		{pw, `{"target":"x","o":[1]}`, "o", "o must be an array of objects", ""},
	}
	for _, c := range cases {
		_, err := CheckArgs("t", params, json.RawMessage(c.raw), c.st)
		var ae *ArgError
		if c.msg == "" {
			if err != nil {
				t.Errorf("%s (named %v): %v", c.raw, c.st.Named, err)
			}
			continue
		}
		if !errors.As(err, &ae) || ae.Arg != c.arg || ae.Msg != c.msg || ae.Hint != c.hint {
			t.Errorf("%s (named %v): got %#v, want %q %q %q", c.raw, c.st.Named, err, c.arg, c.msg, c.hint)
		}
	}
	// The values read: a default for what is left out, numbers by style.
	got, err := CheckArgs("t", params, json.RawMessage(`{"target":"x","n":3,"l":"one","o":[{"k":"v"}]}`), lyraArgs)
	if err != nil || got["mode"] != "a" || got["n"] != int64(3) || len(got["l"].([]string)) != 1 || len(got["o"].([]map[string]any)) != 1 {
		t.Errorf("lyrad's read: %#v %v", got, err)
	}
	if got, err := CheckArgs("t", params, json.RawMessage(`{"target":"x","n":3}`), pw); err != nil || got["n"] != 3.0 {
		t.Errorf("Playwright's read: %#v %v", got, err)
	}
}
