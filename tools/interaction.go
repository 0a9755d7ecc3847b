package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lyrad/lyrad/session"
)

// maxWheel is the most by_y scrolls in one call.
const maxWheel = 20000

const selectorHelp = `CSS (button.save, #email; open shadow roots are searched too), text=Visible text (case-insensitive, part of the text; text="Exact text" for the whole text), xpath=//a, or an aria-ref=eN token from read_page(mode="tree"), which also reaches into iframes.`

const failFast = "Fails fast instead of hanging: a selector that matches nothing answers not_found and a match that cannot be used answers hidden or disabled, each after at most 3 s for a page still building or enabling its controls, and before anyone is asked. Then timeout_ms (default 10000, at most 30000) bounds the action: timeout (the page did not answer; the action may have landed, so look before repeating it), element_not_actionable (covered by another element, which the hint names; removed from the page; off-screen) or page_closed (the tab closed under the call). Each failure carries selector, url and a hint."

const setOff = "If the action makes the page navigate and the guard refuses it (no approval covers the destination, or a form was sent without submits=true), the reply is blocked_by_policy, with url where the tab still stands (redirected_to when a site redirected the browser elsewhere) and the fields an ok reply has; navigate to the destination to be asked for it. A navigation that is allowed is followed until the new page is there (navigated: true). An action that opens a tab answers new_tab: true and tab_count; the new tab is the one later calls read and act on (tabs goes back). A native dialog the page raised (alert, confirm, prompt) is answered at once and listed under dialogs; handle_dialog chooses the answer beforehand."

func interactionTools(d Deps) []*tool {
	m := d.Session
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	boolean := func(desc string) map[string]any { return map[string]any{"type": "boolean", "description": desc} }
	integer := func(desc string) map[string]any { return map[string]any{"type": "integer", "description": desc} }
	elementSchema := func(desc string) map[string]any {
		return map[string]any{"type": "object", "description": desc, "properties": map[string]any{
			"tag": str("element name: button, a, input ..."), "role": str("its role: button, link, textbox ..."), "name": str("its accessible name, cut at 80 characters")}}
	}
	dialogs := map[string]any{"type": "array", "description": "native dialogs the page raised during the call, and how each was answered",
		"items": map[string]any{"type": "object", "properties": map[string]any{
			"type": str("alert, confirm, prompt or beforeunload"), "message": str("the page's text"),
			"answer": str("accepted or dismissed"), "by": str("default, or handle_dialog")}}}
	common := func(extra map[string]any) map[string]any {
		out := map[string]any{
			"url":          str("where the action's tab stands"),
			"title":        str("its title"),
			"tab_count":    integer("how many tabs are open"),
			"selector":     str("the selector as given"),
			"matches":      integer("how many elements the selector matched (the first visible one is used)"),
			"new_tab":      boolean("the action opened a tab, and the session is now on it"),
			"navigated":    boolean("the action made the tab load a new page"),
			"navigating":   boolean("a page the action started was still loading when the call answered"),
			"dialogs":      dialogs,
			"dialogs_more": integer("dialogs beyond the 20 listed"),
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	selectorParam := func(required bool) param {
		return param{name: "selector", kind: "string", required: required, description: "What to act on: " + selectorHelp}
	}
	timeoutParam := param{name: "timeout_ms", kind: "integer", description: "Bound on the action once its target is usable, in ms (default 10000, at most 30000; 0 is 1 ms, never unlimited)."}
	reasonParam := param{name: "reason", kind: "string", description: "Why; shown to the user when the action needs their approval."}
	confirmParam := param{name: "confirm", kind: "boolean", description: "Legacy consent for clients that cannot be asked; never overrides a user's answer."}
	submitsParam := param{name: "submits", kind: "boolean", description: "true when this sends a form or completes a purchase: asks for the permission to send it once. Undeclared, a form the page sends is stopped."}
	downloadParam := param{name: "download", kind: "boolean", description: "true when this is meant to save a file: asks for the permission to keep one. Undeclared, a file the page offers is not kept (download_blocked)."}

	return []*tool{
		{
			name:  "click",
			title: "Click an element",
			description: "Click the element a selector names, with the real mouse (the browser's own input events: hover, press, release at the element's centre), after scrolling it into view.\n" +
				"Set submits=true when the control sends a form or completes a purchase; that asks for the permission it needs, and without it a form the page sends is stopped. reason is shown to the user when they are asked.\n" +
				failFast + "\n" +
				"The reply says how many elements matched (matches; the first visible one is clicked, with a hint when there were several) and what was hit (clicked: tag, role, name), so a wrong pick is visible.\n" +
				setOff + "\n" +
				"download=true saves the file the action offers (asked once; the reply carries download: filename, path, bytes); without it a file is not kept and the reply is download_blocked.",
			params: []param{selectorParam(true), submitsParam, downloadParam, timeoutParam, reasonParam, confirmParam},
			output: common(map[string]any{"clicked": elementSchema("what was clicked")}),
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				opts, err := actOptions(c, true)
				if err != nil {
					return nil, err
				}
				opts.Intent.Submit = c.boolean("submits")
				res, err := m.Click(ctx, c.caller, opts)
				return actReply(res, err, acted("clicked"))
			},
		},
		{
			name:  "type_text",
			title: "Type into a field",
			description: "Replace what a text field holds with text: the field (an input, a textarea, or an editable element) is focused, its content selected, and text arrives as typed text does (beforeinput and input fire). Empty text clears the field.\n" +
				"submit=true presses Enter afterwards, which sends the form the field is in: it asks for the permission to send it once, and without it a form the page sends is stopped.\n" +
				failFast + " A field that is read-only or not a text field answers element_not_actionable.\n" +
				"The text is never echoed in the reply or written to the audit trail.\n" +
				setOff,
			params: []param{
				selectorParam(true),
				{name: "text", kind: "string", description: "What the field should hold afterwards (\"\" clears it)."},
				{name: "value", kind: "string", description: "The same as text (the name older agents use); give one of them."},
				{name: "submit", kind: "boolean", description: "Press Enter afterwards to send the form (asks for the permission to send it)."},
				timeoutParam, reasonParam, confirmParam,
			},
			output: common(map[string]any{
				"typed_into":  elementSchema("the field typed into"),
				"typed_chars": integer("how many characters were typed"),
				"submitted":   boolean("Enter was pressed afterwards"),
			}),
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				opts, err := actOptions(c, true)
				if err != nil {
					return nil, err
				}
				opts.Intent.Submit = c.boolean("submit")
				given := present(c, "text", "value")
				_, hasText := c.args["text"]
				_, hasValue := c.args["value"]
				if hasText == hasValue {
					arg := "text"
					if len(given) > 1 || (hasText && hasValue) {
						arg = "text, value"
					}
					return nil, badArg(arg, "type_text takes the text to type as text (or value), exactly one of them",
						`Pass text="what the field should hold" ("" clears it).`)
				}
				text := c.str("text")
				if hasValue {
					text = c.str("value")
				}
				res, err := m.TypeText(ctx, c.caller, opts, text, c.boolean("submit"))
				return actReply(res, err, func(r *session.ActResult, out map[string]any) {
					if r.Element != nil {
						out["typed_into"], out["typed_chars"] = element(r.Element), r.TypedChars
					}
					if r.Submitted {
						out["submitted"] = true
					}
				})
			},
		},
		{
			name:  "press_key",
			title: "Press a key",
			description: "Press a key or a chord on the focused element of the active tab: Enter, Escape, Tab, ArrowDown, PageDown, F5, a single character, or modifiers joined with \"+\" (Control+a, Shift+Tab, Control+Shift+ArrowLeft).\n" +
				"No key is treated as special: Enter, Space and the rest do whatever the page makes of them, and that is judged when it happens. Set submits=true when you are deliberately sending a form.\n" +
				"timeout_ms (default 10000, at most 30000) bounds it (timeout when the page does not answer).\n" +
				setOff + "\n" +
				"download=true saves the file the action offers (asked once; the reply carries download: filename, path, bytes); without it a file is not kept and the reply is download_blocked.",
			params: []param{
				{name: "key", kind: "string", required: true, description: "The key or chord: Enter, Escape, Tab, ArrowDown, a, Control+a, Shift+Tab ..."},
				submitsParam, downloadParam, timeoutParam, reasonParam, confirmParam,
			},
			output: common(map[string]any{"key": str("the key pressed")}),
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				opts, err := actOptions(c, false)
				if err != nil {
					return nil, err
				}
				opts.Intent.Submit = c.boolean("submits")
				res, err := m.PressKey(ctx, c.caller, c.str("key"), opts)
				return actReply(res, err, func(r *session.ActResult, out map[string]any) {
					if r.Key != "" {
						out["key"] = r.Key
					}
				})
			},
		},
		{
			name:  "hover",
			title: "Hover over an element",
			description: "Move the mouse pointer over the element a selector names, for menus and tooltips that only open while the pointer is on their trigger: hover, then click the item that appeared. Nothing is pressed, so no form is sent by it.\n" +
				failFast + "\n" +
				"The reply says how many elements matched (matches) and what is under the pointer (hovered: tag, role, name). A page that navigates where no approval reaches as the pointer arrives answers blocked_by_policy (see click).",
			params: []param{selectorParam(true), timeoutParam, reasonParam, confirmParam},
			output: common(map[string]any{"hovered": elementSchema("what the pointer is over")}),
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				opts, err := actOptions(c, true)
				if err != nil {
					return nil, err
				}
				res, err := m.Hover(ctx, c.caller, opts)
				return actReply(res, err, acted("hovered"))
			},
		},
		{
			name:  "scroll",
			title: "Scroll the page",
			description: "Scroll the window. Give exactly one of:\n" +
				"  to=\"top\" / to=\"bottom\": jump to that end of the document;\n" +
				fmt.Sprintf("  by_y: that many pixels with the mouse wheel, positive down, negative up (at most %d either way);\n", maxWheel) +
				"  selector: bring the first visible element it names to the middle of the view (" + selectorHelp + ").\n" +
				"The reply is scroll_y, scroll_height and at_bottom once the position has settled, and moved. A scroll that moved nothing says so: the content may sit in a panel that scrolls by itself, which scroll(selector=...) on an element inside it reaches. Pages that load more at the end grow after a scroll: repeat scroll(to=\"bottom\") until at_bottom stays true.\n" +
				"With a selector it fails fast like click (not_found, hidden, disabled, timeout, page_closed).",
			params: []param{
				{name: "to", kind: "string", description: "top or bottom.", enum: []string{"top", "bottom"}},
				{name: "by_y", kind: "integer", description: fmt.Sprintf("Pixels to scroll with the wheel, positive down (|by_y| <= %d).", maxWheel)},
				selectorParam(false), timeoutParam, reasonParam, confirmParam,
			},
			output: common(map[string]any{
				"scroll_y":        integer("the window's vertical scroll position, settled"),
				"scroll_height":   integer("the document's scrollable height"),
				"viewport_height": integer("the viewport's height"),
				"at_bottom":       boolean("the window is at the end of the document"),
				"moved":           boolean("the window's position changed"),
				"scrolled_to":     elementSchema("with a selector: the element brought into view"),
			}),
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				given := 0
				_, hasY := c.args["by_y"]
				for _, set := range []bool{c.str("to") != "", hasY, c.str("selector") != ""} {
					if set {
						given++
					}
				}
				if given != 1 {
					arg := "to"
					if given > 1 {
						arg = strings.Join(present(c, "to", "by_y", "selector"), ", ")
					}
					return nil, badArg(arg, fmt.Sprintf("scroll takes exactly one of to, by_y or selector; %d given", given),
						"Pass to=\"top\" or to=\"bottom\", or by_y=800 (pixels, negative goes up), or selector=\"#footer\".")
				}
				so := session.ScrollOptions{To: c.str("to")}
				if hasY {
					y, _ := c.args["by_y"].(int64)
					if y == 0 || y > maxWheel || y < -maxWheel {
						return nil, badArg("by_y", fmt.Sprintf("by_y must be between -%d and %d and not 0, not %d", maxWheel, maxWheel, y),
							"Scroll by a screenful or so (by_y=800), several calls for more; to=\"bottom\" jumps to the end.")
					}
					so.ByY = y
				}
				opts, err := actOptions(c, false)
				if err != nil {
					return nil, err
				}
				opts.Selector = c.str("selector")
				so.ActOptions = opts
				res, err := m.Scroll(ctx, c.caller, so)
				return actReply(res, err, scrollFields)
			},
		},
		{
			name:  "select_option",
			title: "Choose an option of a select list",
			description: "Choose an option of a <select> (a select list is not a click target): give exactly one of value, label or index. The choice fires input and change the way a person's choice does, so the page reacts as it listens for them.\n" +
				"Set submits=true when choosing sends the form (some pages post on change); without it a form the page sends is stopped.\n" +
				failFast + " Not a <select>: element_not_actionable. No such option: not_found with the choices; a disabled option: disabled.\n" +
				setOff,
			params: []param{
				selectorParam(true),
				{name: "value", kind: "string", description: "The option's value attribute."},
				{name: "label", kind: "string", description: "The option's visible text."},
				{name: "index", kind: "integer", description: "The option's position, from 0."},
				submitsParam, timeoutParam, reasonParam, confirmParam,
			},
			output: common(map[string]any{
				"selected": map[string]any{"type": "object", "description": "the option now chosen: value, label, index"},
				"select":   elementSchema("the select list"),
			}),
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				given := present(c, "value", "label")
				if _, ok := c.args["index"]; ok {
					given = append(given, "index")
				}
				if len(given) != 1 {
					arg := "value"
					if len(given) > 1 {
						arg = strings.Join(given, ", ")
					}
					return nil, badArg(arg, fmt.Sprintf("select_option takes exactly one of value, label or index; %d given", len(given)),
						"Pass value=\"de\", or label=\"Germany\", or index=2.")
				}
				by := session.SelectBy{By: given[0], Value: c.str(given[0])}
				if by.By == "index" {
					by.Index, _ = c.args["index"].(int64)
					if by.Index < 0 {
						return nil, badArg("index", fmt.Sprintf("index must be 0 or more, not %d", by.Index), "Options count from 0.")
					}
				}
				opts, err := actOptions(c, true)
				if err != nil {
					return nil, err
				}
				opts.Intent.Submit = c.boolean("submits")
				res, err := m.SelectOption(ctx, c.caller, opts, by)
				return actReply(res, err, func(r *session.ActResult, out map[string]any) {
					if r.Selected != nil {
						out["selected"] = map[string]any{"value": r.Selected.Value, "label": r.Selected.Label, "index": r.Selected.Index}
					}
					if r.Element != nil {
						out["select"] = element(r.Element)
					}
				})
			},
		},
		{
			name:  "handle_dialog",
			title: "Choose how the next dialog is answered",
			description: "Choose how a native dialog is answered, for the NEXT browser action only.\n" +
				"Dialogs never block the page: every alert, confirm, prompt and beforeunload is answered the moment it appears. Left alone, alerts and beforeunload are accepted and confirm and prompt are dismissed (confirm() returns false, prompt() null). What was raised is listed under dialogs in the reply of the call that raised it; its message is the page's text, not the user's.\n" +
				"Call this immediately BEFORE the one action that raises the dialog. accept=true (the default) answers yes, accept=false no. text is what a prompt() receives (empty accepts the prompt's default); it is ignored when dismissing, and never written to the audit trail.\n" +
				"The answer is for the very next browser-acting call (click, type_text, press_key, hover, scroll, navigate, go_back, reload_page, tabs switch or close) and for every dialog raised while it runs by the tab it acts on (the active tab, its frames included; for tabs close, the tab closed). A dialog another tab or a popup raises meanwhile gets the default answer. It ends with that call whether or not a dialog appeared (also when the call was refused: arm again before retrying), and after 60 s at the latest. A dialog raised later (a page's own timer, a page reached afterwards) is answered by default. Reading (read_page, screenshot, get_url, wait_for, tabs list) does not use it up. Arming again replaces it. Choosing an answer acts on the page, so it needs approval for the active tab's site like any action; reason is shown to the user when they are asked.",
			params: []param{
				{name: "accept", kind: "boolean", description: "true answers yes (OK), false answers no (Cancel).", def: true},
				{name: "text", kind: "string", description: "What a prompt() receives when accepted; empty accepts its default."},
				reasonParam, confirmParam,
			},
			idempotent: true,
			output: map[string]any{
				"accept":     boolean("the answer armed"),
				"expires_in": integer("seconds the answer waits for its call"),
			},
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				until, err := m.ArmDialog(ctx, c.caller, session.DialogAnswer{Accept: c.boolean("accept"), Text: c.str("text")},
					session.Intent{Reason: c.str("reason"), Confirm: c.boolean("confirm")})
				if err != nil {
					return nil, err
				}
				return map[string]any{"accept": c.boolean("accept"), "expires_in": int(time.Until(until).Round(time.Second).Seconds()),
					"hint": "Armed for the next browser-acting call only; make that call now."}, nil
			},
		},
	}
}

// actOptions reads what every acting tool takes.
func actOptions(c *call, withSelector bool) (session.ActOptions, error) {
	ms, given := c.args["timeout_ms"].(int64)
	opts := session.ActOptions{
		Timeout: session.ClampTimeout(ms, given),
		Intent:  session.Intent{Reason: c.str("reason"), Confirm: c.boolean("confirm"), Download: c.boolean("download")},
	}
	if withSelector {
		opts.Selector = c.str("selector")
	}
	return opts, nil
}

// scrollFields are where a scroll settled.
func scrollFields(r *session.ActResult, out map[string]any) {
	if p := r.Scroll; p != nil {
		out["scroll_y"], out["scroll_height"], out["viewport_height"] = p.Y, p.Height, p.ViewportHeight
		out["at_bottom"], out["moved"] = p.AtBottom, p.Moved
	}
	if r.Element != nil {
		out["scrolled_to"] = element(r.Element)
	}
}

// present lists which of the named arguments the call gave.
func present(c *call, names ...string) []string {
	var out []string
	for _, n := range names {
		if v, ok := c.args[n]; ok && v != "" {
			out = append(out, n)
		}
	}
	return out
}
