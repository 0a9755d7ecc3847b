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

// The replies of the interaction tools.

type clickReply struct {
	actBase
	targetBase
	Clicked *elementReply `json:"clicked,omitempty"`
	fieldBase
}

type typeReply struct {
	actBase
	targetBase
	TypedInto  *elementReply `json:"typed_into,omitempty"`
	TypedChars *int          `json:"typed_chars,omitempty"`
	Submitted  bool          `json:"submitted,omitempty" desc:"Enter was pressed"`
	fieldBase
}

type keyReply struct {
	actBase
	Key  string   `json:"key,omitempty"`
	Keys []string `json:"keys,omitempty"`
}

type hoverReply struct {
	actBase
	targetBase
	Hovered *elementReply `json:"hovered,omitempty"`
}

type scrollReply struct {
	actBase
	targetBase
	ScrollY        *int64        `json:"scroll_y,omitempty" desc:"settled"`
	ScrollHeight   *int64        `json:"scroll_height,omitempty"`
	ViewportHeight *int64        `json:"viewport_height,omitempty"`
	AtBottom       *bool         `json:"at_bottom,omitempty"`
	Moved          *bool         `json:"moved,omitempty" desc:"window or panel"`
	ScrolledTo     *elementReply `json:"scrolled_to,omitempty"`
	Panel          *panelReply   `json:"panel,omitempty" desc:"element, scroll_y, scroll_height, height, at_bottom"`
}

type selectReply struct {
	actBase
	targetBase
	Selected *selectedReply `json:"selected,omitempty" desc:"value, label, index"`
	Select   *elementReply  `json:"select,omitempty"`
	fieldBase
}

type dialogArmed struct {
	Accept    bool   `json:"accept" desc:"the answer armed"`
	ExpiresIn int    `json:"expires_in" desc:"seconds it waits for its call"`
	Hint      string `json:"hint,omitempty"`
}

func interactionTools(d Deps) []*tool {
	m := d.Session

	return []*tool{
		{
			name:  "click",
			title: "Click an element",
			description: "Click the element with the real mouse, as a person does: scrolled into view in every panel, hovered, pressed. " +
				actConsent + " " + failsFast + " " + setsOff,
			params: []Param{selectorParam(true), submitsParam, downloadParam, timeoutParam, reasonParam, confirmParam},
			output: outOf[clickReply](),
			run: func(ctx context.Context, c *call) (any, error) {
				opts, err := actOptions(c, true)
				if err != nil {
					return nil, err
				}
				opts.Intent.Submit = c.boolean("submits")
				res, err := m.Click(ctx, c.caller, opts)
				return actReply(res, err, func(r *session.ActResult, out *clickReply) {
					out.Clicked = element(r.Element)
					out.field(r)
				})
			},
		},
		{
			name:  "type_text",
			title: "Type into a field",
			description: "Replace what a field holds with text, typed; date, time, color and range inputs take the ISO form (2014-02-01). " +
				actConsent + " " + failsFast + " " + setsOff,
			params: []Param{
				selectorParam(true),
				{Name: "text", Kind: "string", Description: "What the field should hold (\"\" clears it)."},
				{Name: "value", Kind: "string", Description: "Same as text (older name); give one."},
				{Name: "submit", Kind: "boolean", Description: "Press Enter afterwards to send the form (asks SUBMIT)."},
				timeoutParam, reasonParam, confirmParam,
			},
			output: outOf[typeReply](),
			run: func(ctx context.Context, c *call) (any, error) {
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
				return actReply(res, err, func(r *session.ActResult, out *typeReply) {
					if r.Element != nil {
						out.TypedInto, out.TypedChars = element(r.Element), ptr(r.TypedChars)
					}
					out.Submitted = r.Submitted
					out.field(r)
				})
			},
		},
		{
			name:  "press_key",
			title: "Press a key",
			description: "Press a key or chord (Enter, Control+a), or a sequence (keys), on the focused element. " +
				actConsent + " " + setsOff,
			params: []Param{
				{Name: "key", Kind: "string", Description: "Enter, Escape, Tab, a, Control+a, Shift+Tab ..."},
				{Name: "keys", Kind: "array", Description: "Instead of key: several, in order."},
				submitsParam, downloadParam, timeoutParam, reasonParam, confirmParam,
			},
			output: outOf[keyReply](),
			run: func(ctx context.Context, c *call) (any, error) {
				_, hasKey := c.args["key"]
				keys, hasKeys := c.args["keys"].([]string)
				if hasKey == hasKeys {
					arg := "key"
					if hasKey {
						arg = "key, keys"
					}
					return nil, badArg(arg, "press_key takes exactly one of key or keys",
						`Pass key="Enter" for one key, or keys=["Tab","Tab","Enter"] for several in order.`)
				}
				if !hasKeys {
					keys = []string{c.str("key")}
				}
				opts, err := actOptions(c, false)
				if err != nil {
					return nil, err
				}
				opts.Intent.Submit = c.boolean("submits")
				res, err := m.PressKey(ctx, c.caller, keys, hasKeys, opts)
				return actReply(res, err, func(r *session.ActResult, out *keyReply) {
					out.Key, out.Keys = r.Key, r.Keys
				})
			},
		},
		{
			name:  "hover",
			title: "Hover over an element",
			description: "Move the pointer over the element, for menus and tooltips. " +
				actConsent + " Fails like click.",
			params: []Param{selectorParam(true), timeoutParam, reasonParam, confirmParam},
			output: outOf[hoverReply](),
			run: func(ctx context.Context, c *call) (any, error) {
				opts, err := actOptions(c, true)
				if err != nil {
					return nil, err
				}
				res, err := m.Hover(ctx, c.caller, opts)
				return actReply(res, err, func(r *session.ActResult, out *hoverReply) {
					out.Hovered = element(r.Element)
				})
			},
		},
		{
			name:  "scroll",
			title: "Scroll the page",
			description: "Scroll by exactly one of to, by_y (wheel) or selector (into view, in every panel around it). " + actConsent + " " +
				"Lists that load more: repeat to=bottom until at_bottom stays true.",
			params: []Param{
				{Name: "to", Kind: "string", Description: "", Enum: []string{"top", "bottom"}},
				{Name: "by_y", Kind: "integer", Description: fmt.Sprintf("Pixels, positive down (at most %d either way).", maxWheel)},
				selectorParam(false), timeoutParam, reasonParam, confirmParam,
			},
			output: outOf[scrollReply](),
			run: func(ctx context.Context, c *call) (any, error) {
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
			description: "Choose an option of a select list by exactly one of value, label or index. " +
				actConsent + " Fails like click; no such option: not_found with choices.",
			params: []Param{
				selectorParam(true),
				{Name: "value", Kind: "string", Description: "The option's value."},
				{Name: "label", Kind: "string", Description: "The option's visible text."},
				{Name: "index", Kind: "integer", Description: "Position, from 0."},
				submitsParam, timeoutParam, reasonParam, confirmParam,
			},
			output: outOf[selectReply](),
			run: func(ctx context.Context, c *call) (any, error) {
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
				return actReply(res, err, func(r *session.ActResult, out *selectReply) {
					if r.Selected != nil {
						out.Selected = &selectedReply{Value: r.Selected.Value, Label: r.Selected.Label, Index: r.Selected.Index}
					}
					out.Select = element(r.Element)
					out.field(r)
				})
			},
		},
		{
			name:  "handle_dialog",
			title: "Choose how the next dialog is answered",
			description: "Arm the answer to native dialogs for the next acting call only (60 s at most). " +
				"Unarmed: alert and beforeunload yes, confirm and prompt no, listed under dialogs. " + actConsent,
			params: []Param{
				{Name: "accept", Kind: "boolean", Description: "yes (OK) or no (Cancel).", Default: true},
				{Name: "text", Kind: "string", Description: "What a prompt() gets; empty: its default."},
				reasonParam, confirmParam,
			},
			idempotent: true,
			output:     outOf[dialogArmed](),
			run: func(ctx context.Context, c *call) (any, error) {
				until, err := m.ArmDialog(ctx, c.caller, session.DialogAnswer{Accept: c.boolean("accept"), Text: c.str("text")},
					session.Intent{Reason: c.str("reason"), Confirm: c.boolean("confirm")})
				if err != nil {
					return nil, err
				}
				return dialogArmed{Accept: c.boolean("accept"), ExpiresIn: int(time.Until(until).Round(time.Second).Seconds()),
					Hint: "Armed for the next browser-acting call only; make that call now."}, nil
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
func scrollFields(r *session.ActResult, out *scrollReply) {
	if p := r.Scroll; p != nil {
		out.ScrollY, out.ScrollHeight, out.ViewportHeight = ptr(p.Y), ptr(p.Height), ptr(p.ViewportHeight)
		out.AtBottom, out.Moved = ptr(p.AtBottom), ptr(p.Moved)
		if p.Panel != nil {
			out.Panel = &panelReply{Element: p.Panel.Element, ScrollY: p.Panel.Y, ScrollHeight: p.Panel.Height,
				Height: p.Panel.ViewportHeight, AtBottom: p.Panel.AtBottom}
		}
	}
	out.ScrolledTo = element(r.Element)
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
