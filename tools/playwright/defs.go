package playwright

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/session"
	"github.com/lyrad/lyrad/tools"
)

const (
	targetDesc  = "Exact target element reference from the page snapshot, or a unique element selector"
	elementDesc = "Human-readable element description"
)

var (
	targetReq = tools.Param{Name: "target", Kind: "string", Required: true, Description: targetDesc}
	targetOpt = tools.Param{Name: "target", Kind: "string", Description: targetDesc}
	element   = tools.Param{Name: "element", Kind: "string", Description: elementDesc}
)

// surface is the tool list: Playwright MCP's 25, then lyrad's own under
// the same naming when --caps lyra is given.
func surface(o Options) []*tool {
	list := []*tool{
		{name: "browser_close", title: "Close browser", desc: "Close the browser",
			run: func(ctx context.Context, c *call) error {
				was, err := c.m.CloseBrowser(ctx, c.caller)
				if err != nil {
					return err
				}
				c.r.setChooser(c.caller.ID, "")
				if was {
					c.a.say("Browser closed. Navigate to a URL to open it again.")
				} else {
					c.a.say("No open tabs. Navigate to a URL to create one.")
				}
				return nil
			}},
		{name: "browser_resize", title: "Resize browser window", desc: "Refused in lyrad: the window is the user's.",
			props: []tools.Param{{Name: "width", Kind: "number", Required: true}, {Name: "height", Kind: "number", Required: true}},
			run: func(ctx context.Context, c *call) error {
				return refused("browser_resize", "lyrad drives the user's own browser window and does not resize it; take screenshots of the viewport as it is.")
			}},
		{name: "browser_console_messages", title: "Get console messages", readOnly: true,
			desc: "Refused in lyrad: the console is never enabled (pages detect it).",
			props: []tools.Param{{Name: "level", Kind: "string", Required: true, Enum: []string{"error", "warning", "info", "debug"}, Default: "info"},
				{Name: "all", Kind: "boolean"}, {Name: "filename", Kind: "string"}},
			run: func(ctx context.Context, c *call) error {
				return refused("browser_console_messages", "lyrad never enables the page's console or Runtime domain (anti-bot scripts detect it), so it has no console messages to give. Read the page with browser_snapshot.")
			}},
		{name: "browser_handle_dialog", title: "Handle a dialog",
			desc: "Arm the answer to the next dialog (lyrad answers each dialog as it opens; unarmed: alert yes, confirm and prompt no)",
			props: []tools.Param{{Name: "accept", Kind: "boolean", Required: true, Description: "Whether to accept the dialog."},
				{Name: "promptText", Kind: "string", Description: "The text of the prompt in case of a prompt dialog."}},
			run: func(ctx context.Context, c *call) error {
				until, err := c.m.ArmDialog(ctx, c.caller, session.DialogAnswer{Accept: c.boolean("accept"), Text: c.str("promptText")}, session.Intent{})
				if err != nil {
					return err
				}
				verb := "dismissed"
				if c.boolean("accept") {
					verb = "accepted"
				}
				c.a.say("The next dialog the page opens will be %s (armed for the next action, %d s at most). A dialog an earlier action opened was already answered, as its answer said.",
					verb, int(time.Until(until).Round(time.Second).Seconds()))
				return nil
			}},
		{name: "browser_emulate_media", title: "Emulate media features", desc: "Refused in lyrad: the user's browser is not emulated.",
			props: []tools.Param{{Name: "colorScheme", Kind: "string"}, {Name: "reducedMotion", Kind: "string"}, {Name: "forcedColors", Kind: "string"},
				{Name: "contrast", Kind: "string"}, {Name: "media", Kind: "string"}},
			run: func(ctx context.Context, c *call) error {
				return refused("browser_emulate_media", "lyrad shows pages as the user's browser does; it emulates nothing (emulation is visible to the page and to the user).")
			}},
		{name: "browser_evaluate", title: "Evaluate JavaScript",
			desc: "Run a function on the page or target element, in lyrad's isolated world only (never the page's own); its requests are judged as any. Off by default (LYRA_BROWSER_PLAYWRIGHT_EVALUATE)",
			props: []tools.Param{element, targetOpt, {Name: "function", Kind: "string", Required: true, Description: "() => { /* code */ } or (element) => { /* code */ }"},
				{Name: "filename", Kind: "string"}},
			run: runEvaluate(o)},
		{name: "browser_file_upload", title: "Upload files",
			desc:  "Upload one or multiple files to the file chooser a click opened",
			props: []tools.Param{{Name: "paths", Kind: "array", Description: "The absolute paths to the files to upload. If omitted, file chooser is cancelled."}},
			run:   runUpload},
		{name: "browser_drop", title: "Drop files or data onto an element", desc: "Refused in lyrad: use browser_file_upload.",
			props: []tools.Param{element, targetReq, {Name: "paths", Kind: "array"}, {Name: "data", Kind: "string"}},
			run: func(ctx context.Context, c *call) error {
				return refused("browser_drop", "lyrad puts files only into a file input, through browser_file_upload after clicking it (the upload is judged and, outside the upload roots, asked of the user).")
			}},
		{name: "browser_find", title: "Find in page snapshot", readOnly: true,
			desc: "Search the page snapshot for text or a regular expression; answers the matching lines and their refs.",
			props: []tools.Param{{Name: "text", Kind: "string", Description: "Case-insensitive text"}, {Name: "regex", Kind: "string", Description: "Regular expression (/re/i for flags)"},
				{Name: "filename", Kind: "string"}},
			run: runFind},
		{name: "browser_fill_form", title: "Fill form", desc: "Fill multiple form fields",
			props: []tools.Param{{Name: "fields", Kind: "objects", Required: true, Description: "Fields to fill in"}},
			run:   runFillForm},
		{name: "browser_press_key", title: "Press a key", desc: "Press a key on the keyboard",
			props: []tools.Param{{Name: "key", Kind: "string", Required: true, Description: "Name of the key to press or a character to generate, such as `ArrowLeft` or `a`"}},
			run: func(ctx context.Context, c *call) error {
				res, err := c.m.PressKey(ctx, c.caller, []string{c.str("key")}, false, c.opts(""))
				return c.actedChanges(ctx, res, err)
			}},
		{name: "browser_type", title: "Type text", desc: "Type text into editable element",
			props: []tools.Param{element, targetReq, {Name: "text", Kind: "string", Required: true, Description: "Text to type into the element"},
				{Name: "submit", Kind: "boolean", Description: "Whether to submit entered text (press Enter after)"},
				{Name: "slowly", Kind: "boolean", Description: "Whether to type one character at a time"}},
			run: func(ctx context.Context, c *call) error {
				o := c.opts(target(c.str("target")))
				o.Intent.Submit = c.boolean("submit")
				res, err := c.m.TypeText(ctx, c.caller, o, c.str("text"), c.boolean("submit"))
				return c.actedChanges(ctx, res, err)
			}},
		{name: "browser_navigate", title: "Navigate to a URL", desc: "Navigate to a URL",
			props: []tools.Param{{Name: "url", Kind: "string", Required: true, Description: "The URL to navigate to"}},
			run: func(ctx context.Context, c *call) error {
				c.r.setChooser(c.caller.ID, "")
				res, err := c.m.Navigate(ctx, c.caller, c.str("url"), "load", session.Intent{Download: c.boolean("download")})
				return c.acted(ctx, res, err)
			}},
		{name: "browser_navigate_back", title: "Go back", desc: "Go back to the previous page in the history",
			run: func(ctx context.Context, c *call) error {
				c.r.setChooser(c.caller.ID, "")
				res, err := c.m.GoBack(ctx, c.caller, "load", session.Intent{})
				return c.acted(ctx, res, err)
			}},
		{name: "browser_network_requests", title: "List network requests", readOnly: true,
			desc:  "Refused in lyrad: the guard's decisions are in the audit trail.",
			props: []tools.Param{{Name: "static", Kind: "boolean", Required: true, Default: false}, {Name: "filter", Kind: "string"}, {Name: "filename", Kind: "string"}},
			run: func(ctx context.Context, c *call) error {
				return refused("browser_network_requests", "lyrad's guard judges every request but keeps no request log for the agent; the operator reads what was refused with `lyrad audit --kind guard`.")
			}},
		{name: "browser_network_request", title: "Show network request details", readOnly: true,
			desc:  "Refused in lyrad, as browser_network_requests.",
			props: []tools.Param{{Name: "index", Kind: "integer", Required: true}, {Name: "part", Kind: "string"}, {Name: "filename", Kind: "string"}},
			run: func(ctx context.Context, c *call) error {
				return refused("browser_network_request", "lyrad keeps no request bodies or headers for the agent.")
			}},
		{name: "browser_run_code_unsafe", title: "Run Playwright code (unsafe)",
			desc:  "Refused in lyrad: there is no Playwright, and no code is run for the agent.",
			props: []tools.Param{{Name: "code", Kind: "string"}, {Name: "filename", Kind: "string"}},
			run: func(ctx context.Context, c *call) error {
				return refused("browser_run_code_unsafe", "lyrad drives the browser over CDP, not Playwright, and runs no code an agent sends: that would be a way around the guard. Use the browser_* tools.")
			}},
		{name: "browser_take_screenshot", title: "Take a screenshot", readOnly: true,
			desc: "Take a PNG screenshot of the page or of one element. Act on browser_snapshot, not on the screenshot.",
			props: []tools.Param{element, targetOpt, {Name: "type", Kind: "string", Enum: []string{"png", "jpeg", "webp"}, Description: "png only here"},
				{Name: "filename", Kind: "string"}, {Name: "fullPage", Kind: "boolean"},
				{Name: "scale", Kind: "string", Required: true, Enum: []string{"css", "device"}, Default: "css"}},
			run: runScreenshot(o)},
		{name: "browser_snapshot", title: "Page snapshot", readOnly: true,
			desc:  "Capture accessibility snapshot of the current page, this is better than screenshot",
			props: []tools.Param{targetOpt, {Name: "filename", Kind: "string"}, {Name: "depth", Kind: "number"}, {Name: "boxes", Kind: "boolean"}},
			run:   runSnapshot(o)},
		{name: "browser_click", title: "Click", desc: "Perform click on a web page",
			props: []tools.Param{element, targetReq, {Name: "doubleClick", Kind: "boolean"},
				{Name: "button", Kind: "string", Enum: []string{"left", "right", "middle"}},
				{Name: "modifiers", Kind: "array"}},
			run: runClick},
		{name: "browser_drag", title: "Drag mouse", desc: "Refused in lyrad: no drag and drop.",
			props: []tools.Param{{Name: "startElement", Kind: "string"}, {Name: "startTarget", Kind: "string", Required: true},
				{Name: "endElement", Kind: "string"}, {Name: "endTarget", Kind: "string", Required: true}},
			run: func(ctx context.Context, c *call) error {
				return refused("browser_drag", "lyrad has no drag and drop; click, type and select instead.")
			}},
		{name: "browser_hover", title: "Hover mouse", desc: "Hover over element on page",
			props: []tools.Param{element, targetReq},
			run: func(ctx context.Context, c *call) error {
				res, err := c.m.Hover(ctx, c.caller, c.opts(target(c.str("target"))))
				return c.actedChanges(ctx, res, err)
			}},
		{name: "browser_select_option", title: "Select option", desc: "Select an option in a dropdown",
			props: []tools.Param{element, targetReq, {Name: "values", Kind: "array", Required: true, Description: "Values (or labels) to select; one"}},
			run:   runSelect},
		{name: "browser_tabs", title: "Manage tabs", desc: "List, create, close, or select a browser tab (new with url loads it as browser_navigate, judged the same)",
			props: []tools.Param{{Name: "action", Kind: "string", Required: true, Enum: []string{"list", "new", "close", "select"}},
				{Name: "index", Kind: "number", Description: "Tab index for close/select; close without it closes the current tab"},
				{Name: "url", Kind: "string", Description: "URL for new"}},
			run: runTabs},
		{name: "browser_wait_for", title: "Wait for", readOnly: true,
			desc:  "Wait for text to appear or disappear or a specified time to pass",
			props: []tools.Param{{Name: "time", Kind: "number", Description: "Seconds, at most 30"}, {Name: "text", Kind: "string"}, {Name: "textGone", Kind: "string"}},
			run:   runWait},
	}
	if o.has("lyra") {
		// lyrad keeps a file only when the call declares it: with its own
		// tools come the declarations.
		for _, t := range list {
			if t.name == "browser_click" || t.name == "browser_navigate" {
				t.props = append(t.props, tools.Param{Name: "download", Kind: "boolean", Description: "It downloads a file to keep (asks DOWNLOAD)."})
			}
		}
		list = append(list, lyraTools()...)
	}
	return list
}

func runClick(ctx context.Context, c *call) error {
	if c.boolean("doubleClick") {
		return refused("doubleClick", "lyrad clicks once, as a person does; call browser_click twice.")
	}
	if b := c.str("button"); b != "" && b != "left" {
		return refused("button="+b, "lyrad clicks with the left button only.")
	}
	if len(c.strs("modifiers")) > 0 {
		return refused("modifiers", "lyrad clicks without modifier keys (a modified click opens tabs and windows the guard would have to judge twice).")
	}
	sel := target(c.str("target"))
	o := c.opts(sel)
	o.Intent.Download = c.boolean("download")
	res, err := c.m.Click(ctx, c.caller, o)
	if err != nil {
		return err
	}
	// A click on an input may open the file chooser, which only the
	// whole snapshot tells (fileInput); any other answers what changed.
	if e := res.Element; e == nil || e.Tag != "input" {
		return c.actedChanges(ctx, res, nil)
	}
	if err := c.acted(ctx, res, nil); err != nil {
		return err
	}
	// A click on a file input opens Playwright MCP's file chooser, which
	// browser_file_upload answers: an input the snapshot lists as a button.
	if e := res.Element; e != nil && e.Tag == "input" && e.Role != "button" && !res.Navigated && fileInput(c.a.snapshot, c.str("target")) {
		c.r.setChooser(c.caller.ID, sel)
		c.a.modal = append(c.a.modal, "- [File chooser]: can be handled by browser_file_upload")
	}
	return nil
}

// fileInput reports whether the snapshot lists ref as a button (what an
// input[type=file] is in the map; the element's own role says textbox).
func fileInput(yaml, ref string) bool {
	for _, l := range strings.Split(yaml, "\n") {
		if strings.Contains(l, "[ref="+ref+"]") {
			return strings.HasPrefix(l, "- button")
		}
	}
	return false
}

func runUpload(ctx context.Context, c *call) error {
	sel := c.r.pendingChooser(c.caller.ID)
	if sel == "" {
		return badArg("", `The tool "browser_file_upload" can only be used when there is related modal state present.`,
			"Click the file input first (browser_click), then call browser_file_upload.")
	}
	paths := c.strs("paths")
	if len(paths) == 0 {
		c.r.setChooser(c.caller.ID, "")
		c.a.say("The file chooser was cancelled.")
		c.snap(ctx)
		return nil
	}
	res, err := c.m.UploadFile(ctx, c.caller, c.opts(sel), paths)
	if err != nil {
		return err
	}
	c.r.setChooser(c.caller.ID, "")
	c.a.say("Uploaded %d file(s).", len(paths))
	return c.acted(ctx, res, nil)
}

func runSelect(ctx context.Context, c *call) error {
	vals := c.strs("values")
	if len(vals) != 1 {
		return badArg("values", fmt.Sprintf("lyrad selects one option; %d given", len(vals)), "Pass values=[\"the option's value or text\"].")
	}
	o := c.opts(target(c.str("target")))
	res, err := c.m.SelectOption(ctx, c.caller, o, session.SelectBy{By: "value", Value: vals[0]})
	if status, _, _, _ := refusal(err); status == session.StatusNotFound {
		// Playwright matches a value or a label.
		res, err = c.m.SelectOption(ctx, c.caller, o, session.SelectBy{By: "label", Value: vals[0]})
	}
	return c.actedChanges(ctx, res, err)
}

// maxFunction bounds the source browser_evaluate takes, in bytes.
const maxFunction = 64 << 10

func runEvaluate(o Options) func(ctx context.Context, c *call) error {
	return func(ctx context.Context, c *call) error {
		if !o.Evaluate {
			return refused("browser_evaluate", "it is off in this lyrad (the operator turns it on with LYRA_BROWSER_PLAYWRIGHT_EVALUATE=true or --playwright-evaluate; it then runs in lyrad's isolated world, never the page's own). Read with browser_snapshot or browser_find; act with browser_click, browser_type, browser_select_option.")
		}
		if c.str("filename") != "" {
			return refused("filename", "browser_evaluate answers in the reply here.")
		}
		fn := strings.TrimSpace(c.str("function"))
		if fn == "" || len(fn) > maxFunction {
			return badArg("function", fmt.Sprintf("function must be a JavaScript function of at most %d bytes", maxFunction), "Pass () => { ... } or, with target, (element) => { ... }.")
		}
		sel := ""
		if c.str("target") != "" {
			sel = target(c.str("target"))
		}
		res, out, err := c.m.Evaluate(ctx, c.caller, c.opts(sel), fn)
		if err != nil {
			return err
		}
		c.a.lines = append(c.a.lines, out)
		return c.actedChanges(ctx, res, nil)
	}
}

func runTabs(ctx context.Context, c *call) error {
	switch c.str("action") {
	case "new":
		c.r.setChooser(c.caller.ID, "")
		res, err := c.m.NewTab(ctx, c.caller, c.str("url"), session.Intent{})
		if err != nil {
			return err
		}
		if l, err := c.m.Tabs(ctx, c.caller); err == nil {
			c.a.lines = append(c.a.lines, tabLines(l))
		}
		c.a.acted(res)
		c.snap(ctx)
		return nil
	case "list":
		l, err := c.m.Tabs(ctx, c.caller)
		if err != nil {
			return err
		}
		c.a.lines = append(c.a.lines, tabLines(l))
		return nil
	}
	idx := int(c.num("index"))
	if !c.has("index") {
		if c.str("action") == "select" {
			return badArg("index", "action=select needs the index of a tab", "Call browser_tabs with action=list, then select with its index.")
		}
		l, err := c.m.Tabs(ctx, c.caller)
		if err != nil {
			return err
		}
		idx = l.Active
	}
	step := c.m.CloseTab
	if c.str("action") == "select" {
		step = c.m.SwitchTab
	}
	res, err := step(ctx, c.caller, idx, session.Intent{})
	if err != nil {
		return err
	}
	if res.Tabs != nil {
		c.a.lines = append(c.a.lines, tabLines(res.Tabs))
	}
	c.a.acted(res)
	c.snap(ctx)
	return nil
}

// maxWait is the longest browser_wait_for(time) and text wait.
const maxWait = 30 * time.Second

func runWait(ctx context.Context, c *call) error {
	if !c.has("time") && c.str("text") == "" && c.str("textGone") == "" {
		return badArg("time", "Either time, text or textGone must be provided", "")
	}
	var said []string
	if c.has("time") {
		d := time.Duration(c.num("time") * float64(time.Second))
		d = min(max(d, 0), maxWait)
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return ctx.Err()
		}
		said = append(said, fmt.Sprintf("Waited for %v seconds", c.num("time")))
	}
	for _, w := range []struct{ text, state string }{{c.str("textGone"), "hidden"}, {c.str("text"), "visible"}} {
		if w.text == "" {
			continue
		}
		if _, err := c.m.WaitFor(ctx, c.caller, session.WaitOptions{Text: w.text, State: w.state, Timeout: maxWait}); err != nil {
			return err
		}
		said = append(said, "Waited for "+w.text)
	}
	c.a.say("%s", strings.Join(said, "\n"))
	c.snap(ctx)
	return nil
}

func runSnapshot(o Options) func(ctx context.Context, c *call) error {
	return func(ctx context.Context, c *call) error {
		res, err := c.m.ReadPage(ctx, c.caller, session.ReadOptions{Mode: "tree", MaxChars: maxSnapshot, Selector: target(c.str("target")), Nested: true, Depth: int(c.num("depth"))})
		if err != nil {
			return err
		}
		c.a.page(res.URL, res.Title)
		y := res.Page.Text
		if f := c.str("filename"); f != "" {
			path, err := writeOut(o, f, []byte(y+"\n"))
			if err != nil {
				return err
			}
			c.a.snapNote = fmt.Sprintf("- [Snapshot](%s)", path)
		} else {
			c.a.snapshot = y
		}
		if c.boolean("boxes") {
			c.a.events = append(c.a.events, "- boxes: lyrad's snapshot gives no boxes; browser_take_screenshot shows where things are.")
		}
		if y == "" && c.a.snapNote == "" {
			c.a.snapNote = "# nothing to act on is visible (lyrad's snapshot lists what can be acted on, and headings)"
		}
		if res.Page.Truncated || res.Unlisted > 0 {
			c.a.snapNote += fmt.Sprintf("\n# %d more elements not listed: pass target to snapshot one region.", max(res.Unlisted, 1))
		}
		if c.r.pendingChooser(c.caller.ID) != "" {
			c.a.modal = append(c.a.modal, "- [File chooser]: can be handled by browser_file_upload")
		}
		// lyrad's snapshot lists what can be acted on; the page's words
		// (an article, search results, a message) come beside it, read from
		// the same region.
		if txt, err := c.m.ReadPage(ctx, c.caller, session.ReadOptions{Mode: "text", MaxChars: maxPageText, Selector: target(c.str("target"))}); err == nil && txt.Page.Text != "" {
			c.a.pageText = txt.Page.Text
			if txt.Page.Truncated {
				c.a.pageText += fmt.Sprintf("\n(%d more characters: snapshot a region with target to read them)", txt.Page.Total-txt.Page.Characters)
			}
		}
		return nil
	}
}

// maxPageText bounds the page's text browser_snapshot adds.
const maxPageText = 8000

func runScreenshot(o Options) func(ctx context.Context, c *call) error {
	return func(ctx context.Context, c *call) error {
		if c.has("target") && c.boolean("fullPage") {
			return badArg("fullPage", "fullPage cannot be used with element screenshots", "")
		}
		var capt *session.Capture
		var err error
		what := "viewport"
		if c.has("target") {
			capt, err = c.m.ReadImage(ctx, c.caller, target(c.str("target")))
			what = "element"
		} else {
			capt, _, err = c.m.Screenshot(ctx, c.caller, c.boolean("fullPage"))
			if c.boolean("fullPage") {
				what = "full page"
			}
		}
		if err != nil {
			return err
		}
		path := capt.Path
		data := capt.Data
		if data == nil {
			data, _ = os.ReadFile(capt.Path)
		}
		if f := c.str("filename"); f != "" {
			if path, err = writeOut(o, f, data); err != nil {
				return err
			}
		}
		c.a.say("- [Screenshot of %s](%s)", what, path)
		if t := c.str("type"); t != "" && t != "png" {
			c.a.say("- PNG, not %s: lyrad captures PNG only.", t)
		}
		c.a.content = append(c.a.content, &mcp.ImageContent{Data: data, MIMEType: "image/png"})
		return nil
	}
}

// writeOut writes a named output file into the output directory (its
// base name only: a name cannot reach elsewhere).
func writeOut(o Options, name string, data []byte) (string, error) {
	dir := o.OutputDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "lyrad-playwright-output")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, filepath.Base(name))
	return path, os.WriteFile(path, data, 0o600)
}

func runFind(ctx context.Context, c *call) error {
	text, re := c.str("text"), c.str("regex")
	if (text == "") == (re == "") {
		return badArg("text", "Provide either text or regex, not both", "")
	}
	var match func(string) bool
	what := text
	if re != "" {
		what = re
		pat := re
		if strings.HasPrefix(pat, "/") && strings.LastIndex(pat, "/") > 0 {
			i := strings.LastIndex(pat, "/")
			flags := pat[i+1:]
			pat = pat[1:i]
			if strings.Contains(flags, "i") {
				pat = "(?i)" + pat
			}
		}
		rx, err := regexp.Compile(pat)
		if err != nil {
			return badArg("regex", "regex does not compile: "+err.Error(), "Use Go (RE2) syntax.")
		}
		match = rx.MatchString
	} else {
		low := strings.ToLower(text)
		match = func(s string) bool { return strings.Contains(strings.ToLower(s), low) }
	}
	res, err := c.m.ReadPage(ctx, c.caller, session.ReadOptions{Mode: "tree", MaxChars: maxSnapshot, Nested: true})
	if err != nil {
		return err
	}
	var hits []string
	for _, l := range strings.Split(res.Page.Text, "\n") {
		// An entry that matches, out of its nesting: a found line is its own.
		if l = strings.TrimLeft(l, " "); strings.HasPrefix(l, "- ") && match(l) {
			hits = append(hits, l)
		}
	}
	c.a.page(res.URL, res.Title)
	if len(hits) == 0 {
		c.a.say("No matches found for %q.", what)
		return nil
	}
	out := "```yaml\n" + strings.Join(hits, "\n") + "\n```"
	if f := c.str("filename"); f != "" {
		return refused("filename", "browser_find answers in the reply here.")
	}
	c.a.say("%d matches for %q:\n%s", len(hits), what, out)
	return nil
}

func runFillForm(ctx context.Context, c *call) error {
	fields, _ := c.args["fields"].([]map[string]any)
	if len(fields) == 0 {
		return badArg("fields", "fields must list at least one field", "")
	}
	var last *session.ActResult
	for i, f := range fields {
		s := func(k string) string { v, _ := f[k].(string); return v }
		sel := target(s("target"))
		if sel == "" {
			return badArg("fields", fmt.Sprintf("fields[%d] has no target", i), "Pass each field's ref from the snapshot as target.")
		}
		o := c.opts(sel)
		o.Intent.Reason = s("element")
		var res *session.ActResult
		var err error
		switch s("type") {
		case "textbox", "slider":
			res, err = c.m.TypeText(ctx, c.caller, o, s("value"), false)
		case "combobox":
			res, err = c.m.SelectOption(ctx, c.caller, o, session.SelectBy{By: "label", Value: s("value")})
			if status, _, _, _ := refusal(err); status == session.StatusNotFound {
				res, err = c.m.SelectOption(ctx, c.caller, o, session.SelectBy{By: "value", Value: s("value")})
			}
		case "checkbox", "radio":
			want := s("value") == "true"
			res, err = c.m.Click(ctx, c.caller, o)
			if err == nil && res.Field != nil && res.Field.Checkable && res.Field.Checked != want && s("type") == "checkbox" {
				// It was already as asked: click it back.
				res, err = c.m.Click(ctx, c.caller, o)
			}
		default:
			return badArg("fields", fmt.Sprintf("fields[%d].type must be textbox, checkbox, radio, combobox or slider", i), "")
		}
		if err != nil {
			return err
		}
		last = res
	}
	c.a.say("Filled %d field(s).", len(fields))
	return c.acted(ctx, last, nil)
}

// lyraTools are lyrad's own tools none of the peers has, named as this
// surface names its tools; listed with --caps lyra.
func lyraTools() []*tool {
	asJSON := func(c *call, v any) {
		b, _ := json.MarshalIndent(v, "", "  ")
		c.a.say("```json\n%s\n```", b)
	}
	return []*tool{
		{name: "browser_request_takeover", title: "Hand the browser to the user",
			desc:  "Ask the user to act in the window (a login, a CAPTCHA); the agent's calls wait until browser_resume_after_takeover.",
			props: []tools.Param{{Name: "reason", Kind: "string", Required: true, Description: "What the user should do; shown to them."}},
			run: func(ctx context.Context, c *call) error {
				info, err := c.m.RequestTakeover(ctx, c.caller, c.str("reason"))
				if err != nil {
					return err
				}
				c.a.say("The user has the browser: %s", info.Reason)
				c.a.page(info.URL, info.Title)
				return nil
			}},
		{name: "browser_resume_after_takeover", title: "Take the browser back", desc: "End a takeover once the user is done.",
			props: []tools.Param{{Name: "reason", Kind: "string", Description: "What you will do next; shown to the user."}},
			run: func(ctx context.Context, c *call) error {
				info, err := c.m.ResumeAfterTakeover(ctx, c.caller, c.str("reason"))
				if err != nil {
					return err
				}
				c.a.say("Resumed (takeover ended: %v).", info.Resumed)
				c.a.page(info.URL, info.Title)
				c.snap(ctx)
				return nil
			}},
		{name: "browser_read_form", title: "Read a form", readOnly: true,
			desc:  "The form's fields, buttons, editors and publish controls.",
			props: []tools.Param{{Name: "root", Kind: "string", Description: "CSS of the form (default: the first)."}, {Name: "wholePage", Kind: "boolean"}},
			run: func(ctx context.Context, c *call) error {
				res, err := c.m.ReadForm(ctx, c.caller, session.FormOptions{Root: c.str("root"), WholePage: c.boolean("wholePage"), MaxFields: 100})
				if err != nil {
					return err
				}
				c.a.page(res.URL, res.Title)
				asJSON(c, res)
				return nil
			}},
		{name: "browser_save_draft", title: "Save as a draft", desc: "Submit the form as a draft (never published).",
			props: []tools.Param{{Name: "submit", Kind: "string", Description: "The draft button's text, CSS or ref."}},
			run: func(ctx context.Context, c *call) error {
				res, err := c.m.SaveDraft(ctx, c.caller, target(c.str("submit")), c.opts(""))
				return c.acted(ctx, res, err)
			}},
		{name: "browser_publish", title: "Publish", desc: "Set the live control and submit (asks the user to approve PUBLISH).",
			props: []tools.Param{targetReq, {Name: "submit", Kind: "string"}},
			run: func(ctx context.Context, c *call) error {
				res, err := c.m.Publish(ctx, c.caller, target(c.str("target")), target(c.str("submit")), c.opts(""))
				return c.acted(ctx, res, err)
			}},
		{name: "browser_list_downloads", title: "List downloads", readOnly: true, desc: "The files lyrad kept.",
			run: func(ctx context.Context, c *call) error {
				l, err := c.m.ListDownloads(c.caller)
				if err != nil {
					return err
				}
				if len(l.Files) == 0 {
					c.a.say("No downloads in %s.", l.Dir)
					return nil
				}
				asJSON(c, l)
				return nil
			}},
		{name: "browser_highlight", title: "Point the user to an element", desc: "Outline an element in the window for the user.",
			props: []tools.Param{targetReq},
			run: func(ctx context.Context, c *call) error {
				info, err := c.m.Highlight(ctx, c.caller, target(c.str("target")))
				if err != nil {
					return err
				}
				c.a.say("Highlighted %d element(s).", info.Matches)
				c.a.page(info.URL, info.Title)
				return nil
			}},
	}
}
