package playwright

import (
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

// tool is one entry of the surface.
type tool struct {
	name, title, desc string
	props             []tools.Param
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
	props, required := tools.ParamSchemas(t.props, fieldSchema)
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

// pwArgs is how this surface words an argument's errors: as Playwright
// MCP's own checks do, numbers read as float64, a blank target refused.
var pwArgs = tools.ArgStyle{ObjectHint: "Pass the arguments as an object.", Float: true,
	EmptyTargetHint: "Pass a ref from the snapshot (e12) or a selector."}

// checkArgs decodes the arguments and checks them against the tool's
// parameters (tools.CheckArgs): an unknown one, a wrong type or a value
// outside its set is named, with the fix.
func checkArgs(t *tool, raw json.RawMessage) (map[string]any, error) {
	return tools.CheckArgs(t.name, t.props, raw, pwArgs)
}
