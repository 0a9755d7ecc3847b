package playwright

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/session"
	"github.com/lyrad/lyrad/snapshot"
	"github.com/lyrad/lyrad/tools"
)

// prop is one parameter: its name and JSON schema. kind is what checkArgs
// holds the value to: string, boolean, number, integer, array (of
// strings), objects (an array of objects).
type prop struct {
	name     string
	kind     string
	required bool
	desc     string
	enum     []string
	def      any
}

// tool is one entry of the surface.
type tool struct {
	name, title, desc string
	props             []prop
	readOnly          bool
	run               func(ctx context.Context, c *call) error
}

// call is one invocation.
type call struct {
	r      *registry
	m      tools.Session
	caller session.Caller
	args   map[string]any
	a      *answer
}

func (c *call) str(k string) string { s, _ := c.args[k].(string); return s }
func (c *call) boolean(k string) bool {
	b, _ := c.args[k].(bool)
	return b
}
func (c *call) has(k string) bool { _, ok := c.args[k]; return ok }
func (c *call) num(k string) float64 {
	f, _ := c.args[k].(float64)
	return f
}
func (c *call) strs(k string) []string { l, _ := c.args[k].([]string); return l }

// target is a Playwright target as a lyrad selector: a snapshot ref (e12)
// is aria-ref=e12; anything else is taken as the selector it is.
func target(s string) string {
	s = strings.TrimSpace(s)
	if isRef(s) {
		return "aria-ref=" + s
	}
	return s
}

func isRef(s string) bool {
	if len(s) < 2 || s[0] != 'e' {
		return false
	}
	for _, r := range s[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// actTimeout bounds an action, as Playwright MCP's default action timeout.
const actTimeout = 5 * time.Second

// opts are an acting call's options. Playwright MCP's element ("used to
// obtain permission to interact with the element") is what lyrad shows
// the user when it asks: the call's reason.
func (c *call) opts(sel string) session.ActOptions {
	return session.ActOptions{Selector: sel, Timeout: actTimeout, Intent: session.Intent{Reason: c.str("element")}}
}

// snap adds the page's snapshot (and where it stands) to the answer.
func (c *call) snap(ctx context.Context) {
	res, err := c.m.ReadPage(ctx, c.caller, session.ReadOptions{Mode: "tree", MaxChars: maxSnapshot, Nested: true})
	if err != nil {
		_, msg, _, _ := refusal(err)
		c.a.snapNote = "(not read: " + msg + ")"
		return
	}
	if !c.a.pageSet {
		c.a.page(res.URL, res.Title)
	}
	c.a.snapshot = res.Page.Text
	if res.Page.Truncated || res.Unlisted > 0 {
		c.a.snapNote = fmt.Sprintf("# %d more elements not listed: browser_snapshot with target limits it to one region.", max(res.Unlisted, 1))
	}
	if c.a.snapshot == "" {
		c.a.snapNote = "# nothing to act on is visible (lyrad's snapshot lists what can be acted on, and headings)"
	}
	if sel := c.r.pendingChooser(c.caller.ID); sel != "" {
		c.a.modal = append(c.a.modal, "- [File chooser]: can be handled by browser_file_upload")
	}
}

// maxSnapshot bounds the snapshot an answer carries, in characters.
const maxSnapshot = 60000

// acted answers an acting call: what it set off, then the snapshot.
func (c *call) acted(ctx context.Context, res *session.ActResult, err error) error {
	if err != nil {
		return err
	}
	c.a.acted(res)
	if res.NewTab || res.TabCount > 1 {
		if l, err := c.m.Tabs(ctx, c.caller); err == nil && len(l.Tabs) > 1 {
			c.a.tabs = l
		}
	}
	c.snap(ctx)
	return nil
}

// actedChanges answers an acting call as Playwright MCP's incremental
// snapshot does: what it set off, and under ### Snapshot the lines it
// changed, with the refs a following call passes (the session read the
// page once the call settled, and those refs resolve). A call that loaded
// a page or opened a tab, or one whose changes the session could not
// read, answers the whole snapshot instead.
func (c *call) actedChanges(ctx context.Context, res *session.ActResult, err error) error {
	if err != nil {
		return err
	}
	if res.Changes == "" || res.Navigated || res.NewTab || res.Navigating || strings.HasPrefix(res.Changes, "new ") {
		return c.acted(ctx, res, nil)
	}
	c.a.acted(res)
	if res.TabCount > 1 {
		if l, err := c.m.Tabs(ctx, c.caller); err == nil && len(l.Tabs) > 1 {
			c.a.tabs = l
		}
	}
	// lyrad's notes among the lines name its own tools; the page's words
	// are left as they are. The changes come nested, each under what holds
	// it on the page, as the snapshot is.
	y := res.ChangesNested
	if y == "" {
		y = snapshot.YAMLFromChanges(res.Changes)
	}
	lines := strings.Split(y, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "# ") && !strings.HasPrefix(l, "# gone: ") {
			lines[i] = pwHint("", l)
		}
	}
	c.a.snapshot = strings.Join(lines, "\n")
	if c.a.snapshot == "" {
		c.a.snapNote = "# nothing in the snapshot changed (browser_snapshot gives the whole page)"
	} else {
		c.a.snapNote = "# what changed since the last snapshot (browser_snapshot gives the whole page)"
	}
	if sel := c.r.pendingChooser(c.caller.ID); sel != "" {
		c.a.modal = append(c.a.modal, "- [File chooser]: can be handled by browser_file_upload")
	}
	return nil
}

func (t *tool) mcpTool() *mcp.Tool {
	props := map[string]any{}
	var required []string
	for _, p := range t.props {
		s := map[string]any{}
		switch p.kind {
		case "array":
			s["type"], s["items"] = "array", map[string]any{"type": "string"}
		case "objects":
			s["type"], s["items"] = "array", fieldSchema
		default:
			s["type"] = p.kind
		}
		if p.desc != "" {
			s["description"] = p.desc
		}
		if len(p.enum) > 0 {
			s["enum"] = p.enum
		}
		if p.def != nil {
			s["default"] = p.def
		}
		props[p.name] = s
		if p.required {
			required = append(required, p.name)
		}
	}
	in := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		in["required"] = required
	}
	f := false
	var destructive *bool
	if t.readOnly {
		destructive = &f
	}
	return &mcp.Tool{
		Name: t.name, Description: t.desc, InputSchema: in,
		Annotations: &mcp.ToolAnnotations{Title: t.title, ReadOnlyHint: t.readOnly, DestructiveHint: destructive},
	}
}

// fieldSchema is one field of browser_fill_form.
var fieldSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":    map[string]any{"type": "string"},
		"type":    map[string]any{"type": "string", "enum": []string{"textbox", "checkbox", "radio", "combobox", "slider"}},
		"target":  map[string]any{"type": "string"},
		"element": map[string]any{"type": "string"},
		"value":   map[string]any{"type": "string", "description": "checkbox: true or false; combobox: the option's text"},
	},
	"required": []string{"target", "name", "type", "value"},
}

// checkArgs decodes the arguments and checks them against the tool's
// parameters: an unknown one, a wrong type or a value outside its set is
// named, with the fix.
func checkArgs(t *tool, raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			return nil, badArg("", "arguments must be a JSON object", "Pass the arguments as an object.")
		}
	}
	known := map[string]bool{}
	var names []string
	for _, p := range t.props {
		known[p.name] = true
		names = append(names, p.name)
	}
	for k := range args {
		if !known[k] {
			takes := "no arguments"
			if len(names) > 0 {
				takes = strings.Join(names, ", ")
			}
			return nil, badArg(k, fmt.Sprintf("unknown argument %q", k), fmt.Sprintf("%s takes %s.", t.name, takes))
		}
	}
	out := map[string]any{}
	for _, p := range t.props {
		v, ok := args[p.name]
		if !ok || v == nil {
			// A parameter with a default is listed as required, as
			// Playwright MCP lists it, and takes its default when left out.
			if p.def != nil {
				out[p.name] = p.def
				continue
			}
			if p.required {
				return nil, badArg(p.name, fmt.Sprintf("missing required argument %q", p.name), fmt.Sprintf("Pass %s (%s).", p.name, p.kind))
			}
			continue
		}
		wrong := func(want string) error {
			return badArg(p.name, fmt.Sprintf("%s must be %s", p.name, want), "")
		}
		switch p.kind {
		case "string":
			s, ok := v.(string)
			if !ok {
				return nil, wrong("a string")
			}
			if len(p.enum) > 0 && !contains(p.enum, s) {
				return nil, badArg(p.name, fmt.Sprintf("%s must be one of %s, not %q", p.name, strings.Join(p.enum, ", "), s), "")
			}
			if p.required && strings.TrimSpace(s) == "" && strings.HasSuffix(strings.ToLower(p.name), "target") {
				return nil, badArg(p.name, p.name+" is empty", "Pass a ref from the snapshot (e12) or a selector.")
			}
			out[p.name] = s
		case "boolean":
			b, ok := v.(bool)
			if !ok {
				return nil, wrong("true or false")
			}
			out[p.name] = b
		case "number", "integer":
			n, ok := v.(json.Number)
			f, err := n.Float64()
			if !ok || err != nil {
				return nil, wrong("a number")
			}
			out[p.name] = f
		case "array":
			var list []string
			switch x := v.(type) {
			case string:
				list = []string{x}
			case []any:
				for _, e := range x {
					s, ok := e.(string)
					if !ok {
						return nil, wrong("an array of strings")
					}
					list = append(list, s)
				}
			default:
				return nil, wrong("an array of strings")
			}
			out[p.name] = list
		case "objects":
			x, ok := v.([]any)
			if !ok {
				return nil, wrong("an array of objects")
			}
			var list []map[string]any
			for _, e := range x {
				o, ok := e.(map[string]any)
				if !ok {
					return nil, wrong("an array of objects")
				}
				list = append(list, o)
			}
			out[p.name] = list
		}
	}
	return out, nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
