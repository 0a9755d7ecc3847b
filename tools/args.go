package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Param describes one argument of a tool, on either surface: its name,
// its JSON type (Kind: string, boolean, integer, number, array: of
// strings, objects: an array of objects), whether it must be given, what
// it is, the values it may take and its default.
type Param struct {
	Name        string
	Kind        string
	Required    bool
	Description string
	Enum        []string
	Default     any
}

// ParamSchemas is the JSON schema of each param, by name (its type, an
// array's items as strings, or objects' items as the schema items gives,
// its description, enum and default), and the names of those required.
func ParamSchemas(params []Param, objects map[string]any) (props map[string]any, required []string) {
	props = map[string]any{}
	for _, p := range params {
		s := map[string]any{"type": p.Kind}
		switch p.Kind {
		case "array":
			s["items"] = map[string]any{"type": "string"}
		case "objects":
			s["type"], s["items"] = "array", objects
		}
		if p.Description != "" {
			s["description"] = p.Description
		}
		if len(p.Enum) > 0 {
			s["enum"] = p.Enum
		}
		if p.Default != nil {
			s["default"] = p.Default
		}
		props[p.Name] = s
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return props, required
}

// ArgError is a bad argument, named (Arg "" for the arguments as a whole),
// with the fix when there is one.
type ArgError struct {
	Arg, Msg, Hint string
}

func (e *ArgError) Error() string { return e.Msg }

func badArg(arg, msg, hint string) error { return &ArgError{Arg: arg, Msg: msg, Hint: hint} }

// ArgStyle is how a surface words what is wrong with an argument, and
// how it reads numbers: each surface keeps the answers its agents know.
type ArgStyle struct {
	// ObjectHint is the fix for arguments that are not a JSON object.
	ObjectHint string
	// Named: a wrong value's message says what it was (", not a number"),
	// every error gives the fix, a missing argument's its description.
	Named bool
	// Float: an integer is read as a float64 and called a number, as a
	// number is; otherwise it is an int64.
	Float bool
	// EmptyTargetHint, when set, refuses a blank required argument whose
	// name ends in "target", with this fix.
	EmptyTargetHint string
}

// lyraArgs is lyrad's own surface's style.
var lyraArgs = ArgStyle{ObjectHint: "Pass the arguments as an object, e.g. {\"url\": \"https://example.com\"}.", Named: true}

// CheckArgs decodes a call's arguments and checks them against the tool's
// params: an unknown one, a missing one, a wrong type or a value outside
// its set is an *ArgError naming it; one left out takes its default.
func CheckArgs(toolName string, params []Param, raw json.RawMessage, st ArgStyle) (map[string]any, error) {
	args := map[string]any{}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			return nil, badArg("", "arguments must be a JSON object", st.ObjectHint)
		}
	}
	known := map[string]bool{}
	var names []string
	for _, p := range params {
		known[p.Name] = true
		names = append(names, p.Name)
	}
	for k := range args {
		if !known[k] {
			takes := "no arguments"
			if len(names) > 0 {
				takes = strings.Join(names, ", ")
			}
			return nil, badArg(k, fmt.Sprintf("unknown argument %q", k), fmt.Sprintf("%s takes %s.", toolName, takes))
		}
	}
	out := map[string]any{}
	for _, p := range params {
		v, ok := args[p.Name]
		if !ok || v == nil {
			// A parameter with a default takes it when left out (Playwright
			// MCP lists such a one as required).
			if p.Default != nil {
				out[p.Name] = p.Default
				continue
			}
			if p.Required {
				hint := fmt.Sprintf("Pass %s (%s).", p.Name, p.Kind)
				if st.Named {
					hint = fmt.Sprintf("Pass %s (%s): %s", p.Name, p.Kind, p.Description)
				}
				return nil, badArg(p.Name, fmt.Sprintf("missing required argument %q", p.Name), hint)
			}
			continue
		}
		// wrong is the error for a value of another type: want is what it
		// must be, hint the fix (both said only in the Named style's).
		wrong := func(got any, want, hint string) error {
			if !st.Named {
				return badArg(p.Name, fmt.Sprintf("%s must be %s", p.Name, want), "")
			}
			return badArg(p.Name, fmt.Sprintf("%s must be %s, not %s", p.Name, want, jsonType(got)), hint)
		}
		switch p.Kind {
		case "string":
			s, ok := v.(string)
			if !ok {
				return nil, wrong(v, "a string", "Pass it as a JSON string.")
			}
			if len(p.Enum) > 0 && !contains(p.Enum, s) {
				hint := ""
				if st.Named {
					hint = fmt.Sprintf("Use one of: %s.", strings.Join(p.Enum, ", "))
				}
				return nil, badArg(p.Name, fmt.Sprintf("%s must be one of %s, not %q", p.Name, strings.Join(p.Enum, ", "), s), hint)
			}
			if st.EmptyTargetHint != "" && p.Required && strings.TrimSpace(s) == "" && strings.HasSuffix(strings.ToLower(p.Name), "target") {
				return nil, badArg(p.Name, p.Name+" is empty", st.EmptyTargetHint)
			}
			out[p.Name] = s
		case "boolean":
			b, ok := v.(bool)
			if !ok {
				return nil, wrong(v, "true or false", "Pass a JSON boolean.")
			}
			out[p.Name] = b
		case "integer", "number":
			n, ok := v.(json.Number)
			if p.Kind == "integer" && !st.Float {
				i, err := n.Int64()
				if !ok || err != nil {
					return nil, wrong(v, "an integer", "Pass a whole number.")
				}
				out[p.Name] = i
				continue
			}
			f, err := n.Float64()
			if !ok || err != nil {
				return nil, wrong(v, "a number", "Pass a JSON number.")
			}
			out[p.Name] = f
		case "array":
			// A list of strings; one string is taken as a list of one.
			var list []string
			switch x := v.(type) {
			case string:
				list = []string{x}
			case []any:
				for _, e := range x {
					s, ok := e.(string)
					if !ok {
						if st.Named {
							return nil, badArg(p.Name, fmt.Sprintf("%s must hold strings, not %s", p.Name, jsonType(e)), "Pass a JSON array of strings.")
						}
						return nil, wrong(v, "an array of strings", "")
					}
					list = append(list, s)
				}
			default:
				return nil, wrong(v, "an array of strings", "Pass a JSON array of strings.")
			}
			out[p.Name] = list
		case "objects":
			x, ok := v.([]any)
			var list []map[string]any
			for _, e := range x {
				o, isObj := e.(map[string]any)
				if !isObj {
					ok = false
					break
				}
				list = append(list, o)
			}
			if !ok {
				return nil, wrong(v, "an array of objects", "Pass a JSON array of objects.")
			}
			out[p.Name] = list
		}
	}
	return out, nil
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "null"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
