package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"

	"github.com/lyrad/lyrad/page"
)

// The tools that act on a page with input. Each states its own step; the
// pipeline (act.go) does the rest.

// Click clicks the element a selector names.
func (m *Manager) Click(ctx context.Context, c Caller, opts ActOptions) (*ActResult, error) {
	return m.pointer(ctx, c, opts, actClick)
}

// Hover moves the pointer over the element a selector names.
func (m *Manager) Hover(ctx context.Context, c Caller, opts ActOptions) (*ActResult, error) {
	return m.pointer(ctx, c, opts, actHover)
}

func (m *Manager) pointer(ctx context.Context, c Caller, opts ActOptions, kind actKind) (*ActResult, error) {
	spec := actSpec{verb: kind.verb(), opts: opts, usable: kind, on: onElement, watch: settleInput}
	if kind == actClick {
		spec.downloadWait, spec.downloadGrace = opts.Timeout, BlockedGrace
	}
	spec.do = func(ctx context.Context, a *act) error {
		a.res.Element = a.st.info()
		if kind == actHover {
			if _, err := a.pointAt(ctx, a.loc.Node); err != nil {
				return err
			}
			a.settle(ctx, lingerLight, a.loc.Node)
			return nil
		}
		if err := a.clickNode(ctx, a.loc.Node); err != nil {
			return err
		}
		a.settle(ctx, lingerPress, a.loc.Node)
		if a.st.checkable() {
			a.fieldAfter(ctx, a.loc.Node, true)
		}
		return nil
	}
	return m.act(ctx, c, spec)
}

// pointAt brings the pointer over n, into view first, and answers where
// it aimed (the point in the tab's viewport, and in n's frame for the hit
// check). Over an item of a list, a menu, a tree or a grid the pointer
// arrives as a person's passes over: it enters a little short of the
// point, then moves on to it, a frame later, so the page sees it enter and
// then move within (a list that ignores the pointer's first arrival, which
// may be the list opening under a resting pointer, and picks the item it
// then moves over, has picked it). Elsewhere it moves once, a frame
// sooner.
func (a *act) pointAt(ctx context.Context, n *page.Node) (page.Aim, error) {
	aim, err := a.point(ctx, n)
	if err != nil {
		return aim, err
	}
	s := a.b.conn.Session(a.tab.SessionID)
	if aim.InList {
		if err := page.MouseMove(ctx, s, math.Max(aim.X-approach, 0), aim.Y); err != nil {
			return aim, err
		}
	}
	return aim, page.MouseMove(ctx, s, aim.X, aim.Y)
}

// approach is how far short of its point, in CSS pixels, the pointer
// enters a list's item.
const approach = 2

// clickNode clicks n with the real mouse: the pointer arrives, and since
// its arrival can change the page (a hover menu over the button, the
// button replaced) the hit is checked again before pressing.
func (a *act) clickNode(ctx context.Context, n *page.Node) error {
	aim, err := a.pointAt(ctx, n)
	if err != nil {
		return err
	}
	x, y, fx, fy := aim.X, aim.Y, aim.FX, aim.FY
	// JSHit runs once the pointer's move was handled: what the page did on
	// its arrival (a list that picks the item under the pointer) is done
	// before the press.
	var hit struct {
		Gone    bool   `json:"gone"`
		Covered string `json:"covered"`
		Page    bool   `json:"coverPage"`
		Frame   string `json:"coverFrame"`
	}
	if err := a.b.call(ctx, n, page.JSHit, &hit, fx, fy); err != nil {
		return err
	}
	if hit.Gone {
		return &page.NodeGoneError{Err: errors.New("detached")}
	}
	if hit.Covered != "" {
		if hit.Frame == "?" {
			hit.Frame = page.HitFrameOrigin(ctx, a.b.conn, n, fx, fy)
		}
		return a.covered(ctx, n, hit.Covered, hit.Frame, hit.Page, fx, fy, true)
	}
	// And through the documents above its frame, which can lay something
	// over the frame as the pointer arrives.
	if err := page.FrameHit(ctx, a.b.conn, &a.b.worlds, a.b.pageTab(a.tab), n, fx, fy, x, y, a.group); err != nil {
		var pe *page.PointError
		if errors.As(err, &pe) {
			if pe.Why == page.PointCovered {
				return a.coveredOuter(pe, true)
			}
			return a.pointFailure(ctx, n, pe)
		}
		return err
	}
	return page.MouseClick(ctx, a.b.conn.Session(a.tab.SessionID), x, y)
}

// TypeText replaces what a text field holds with text, as typed text
// arrives (Input.insertText: beforeinput and input fire), and with submit
// presses Enter after it. An input whose value is set whole (date, time,
// datetime-local, month, week, color, range) takes text in its ISO form,
// set as a choice in its picker is (JSSetValue). The reply says what the
// field holds after (for a password, only that it is filled); the text is
// never audited.
func (m *Manager) TypeText(ctx context.Context, c Caller, opts ActOptions, text string, submit bool) (*ActResult, error) {
	return m.act(ctx, c, actSpec{verb: "type_text", opts: opts, usable: actType, on: onElement, watch: settleInput,
		do: func(ctx context.Context, a *act) error {
			n := a.loc.Node
			s := a.b.conn.Session(a.tab.SessionID)
			if vt := a.st.ValueType; vt != "" {
				if err := a.setValue(ctx, n, vt, text); err != nil {
					return err
				}
			} else {
				var focused bool
				if err := a.b.call(ctx, n, page.JSFocusText, &focused); err != nil {
					return err
				}
				if !focused {
					return a.failure(StatusNotActionable, "the field did not take the focus (the page moved it elsewhere)",
						"Click the field first, then type_text again; the page may open something in front of it.")
				}
				// Keys and text go to the focused frame through the tab's
				// session.
				var err error
				if text == "" {
					// Nothing to insert: delete the selection, which is all it
					// held.
					err = page.Press(ctx, s, page.DeleteKey)
				} else {
					err = page.InsertText(ctx, s, text)
				}
				if err != nil {
					return err
				}
			}
			linger := lingerLight
			if submit {
				if err := page.Press(ctx, s, page.EnterKey); err != nil {
					return err
				}
				linger = lingerPress
			}
			a.res.Element, a.res.TypedChars, a.res.Submitted = a.st.info(), len([]rune(text)), submit
			a.settle(ctx, linger, n)
			a.fieldAfter(ctx, n, false)
			return nil
		}})
}

// setValue gives an input of type vt (date, time, ...) the value text,
// which must be in the form the input holds.
func (a *act) setValue(ctx context.Context, n *page.Node, vt, text string) error {
	v, form, ok := isoValue(vt, text)
	if !ok {
		return a.failure(StatusError, fmt.Sprintf("the text is not a %s value in the form %s", vt, form),
			fmt.Sprintf("A %s input takes its value in ISO form, as the page's form sends it: %s. Repeat type_text with text in that form.", vt, form)).
			arg("text").expecting(form)
	}
	var res struct {
		Value   string `json:"value"`
		Refused bool   `json:"refused"`
	}
	if err := a.b.call(ctx, n, page.JSSetValue, &res, v); err != nil {
		return err
	}
	if res.Refused {
		return a.failure(StatusError, fmt.Sprintf("the %s input did not take the value (not a valid %s)", vt, vt),
			fmt.Sprintf("Give a %s that exists, in the form %s.", vt, form)).arg("text").expecting(form)
	}
	return nil
}

// isoForms are the forms of the inputs whose value is set whole, with an
// example.
var isoForms = map[string]string{
	"date":           "YYYY-MM-DD (2014-02-01)",
	"time":           "HH:MM, 24-hour, or HH:MM:SS (13:45)",
	"datetime-local": "YYYY-MM-DDTHH:MM (2014-02-01T13:45)",
	"month":          "YYYY-MM (2014-02)",
	"week":           "YYYY-Www (2014-W05)",
	"color":          "#rrggbb in hex (#ff0000)",
	"range":          "a number (42)",
}

var (
	reDate  = regexp.MustCompile(`^(\d{4,})-(\d{2})-(\d{2})$`)
	reTime  = regexp.MustCompile(`^([01]\d|2[0-3]):([0-5]\d)(:[0-5]\d(\.\d{1,3})?)?$`)
	reMonth = regexp.MustCompile(`^(\d{4,})-(0[1-9]|1[0-2])$`)
	reWeek  = regexp.MustCompile(`^(\d{4,})-W(0[1-9]|[1-4]\d|5[0-3])$`)
	reColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)
)

// isoValue checks text against the form an input of type vt holds, and
// answers the value to set (a colour lower-cased, a datetime's space made
// a T), that form, and whether it fits.
func isoValue(vt, text string) (string, string, bool) {
	form := isoForms[vt]
	t := strings.TrimSpace(text)
	date := func(s string) bool {
		m := reDate.FindStringSubmatch(s)
		if m == nil {
			return false
		}
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		if y < 1 || mo < 1 || mo > 12 || d < 1 {
			return false
		}
		return d <= time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	}
	if t == "" && vt != "color" && vt != "range" {
		// "" clears a date or a time, as the picker's clear button does.
		return "", form, true
	}
	switch vt {
	case "date":
		return t, form, date(t)
	case "time":
		return t, form, reTime.MatchString(t)
	case "datetime-local":
		i := strings.IndexAny(t, "T ")
		if i < 0 {
			return t, form, false
		}
		t = t[:i] + "T" + t[i+1:]
		return t, form, date(t[:i]) && reTime.MatchString(t[i+1:])
	case "month":
		return t, form, reMonth.MatchString(t)
	case "week":
		return t, form, reWeek.MatchString(t)
	case "color":
		return strings.ToLower(t), form, reColor.MatchString(t)
	case "range":
		f, err := strconv.ParseFloat(t, 64)
		return t, form, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	}
	return t, form, false
}

// fieldAfter puts what the field n holds now into the reply (JSFieldValue);
// onlyCheckable: only a checkbox, radio or switch (a click). A field gone
// with the page (a submit that navigated) says nothing.
func (a *act) fieldAfter(ctx context.Context, n *page.Node, onlyCheckable bool) {
	var v struct {
		Field     bool   `json:"field"`
		Value     string `json:"value"`
		Checkable bool   `json:"checkable"`
		Checked   bool   `json:"checked"`
		Password  bool   `json:"password"`
		Filled    bool   `json:"filled"`
	}
	if a.outcome.Navigated || a.outcome.TabClosed {
		return
	}
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	if err := a.b.call(qctx, n, page.JSFieldValue, &v); err != nil || !v.Field || (onlyCheckable && !v.Checkable) {
		return
	}
	a.res.Field = &FieldValue{Value: v.Value, Checkable: v.Checkable, Checked: v.Checked, Password: v.Password, Filled: v.Filled}
}

// maxKeys is the most keys one press_key sequence presses.
const maxKeys = 50

// PressKey presses each key or chord of keys in turn ("Enter",
// "Control+a") in the focused element of the active tab, letting the page
// run what each queued before the next (focus moved by Tab, a list opened
// by ArrowDown). seq: keys was given as a sequence (the reply says keys).
func (m *Manager) PressKey(ctx context.Context, c Caller, keys []string, seq bool, opts ActOptions) (*ActResult, error) {
	arg := "key"
	if seq {
		arg = "keys"
	}
	if len(keys) == 0 {
		return nil, newError(StatusError, "keys is empty", `Pass the keys to press in order: keys=["Tab","Tab","Enter"].`).arg(arg)
	}
	if len(keys) > maxKeys {
		return nil, newError(StatusError, fmt.Sprintf("keys holds %d keys, more than %d", len(keys), maxKeys),
			"Press them in several calls, or type text with type_text.").arg(arg)
	}
	chords := make([]page.KeyChord, len(keys))
	for i, key := range keys {
		ch, err := page.ParseChord(key)
		if err != nil {
			msg := err.Error()
			if seq {
				msg = fmt.Sprintf("keys[%d]: %s", i, msg)
			}
			return nil, newError(StatusError, msg,
				`Name one key, with modifiers joined by "+": Enter, Escape, Tab, ArrowDown, PageDown, F5, a, Control+a, Shift+Tab, Control+Shift+ArrowLeft.`).arg(arg)
		}
		chords[i] = ch
	}
	return m.act(ctx, c, actSpec{verb: "key press", opts: opts, on: onFocus, watch: settleInput,
		downloadWait: keyDownloadWait, downloadGrace: BlockedGrace,
		do: func(ctx context.Context, a *act) error {
			s := a.b.conn.Session(a.tab.SessionID)
			for i, ch := range chords {
				if i > 0 {
					// What the last key queued runs before the next (a
					// page that moved away ends the wait at once).
					dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
					_ = a.b.worlds.CallFunction(dctx, s, cdp.FrameID(a.tab.ID), page.JSDrain, nil)
					cancel()
				}
				if err := page.Press(ctx, s, ch); err != nil {
					return err
				}
			}
			if seq {
				a.res.Keys = keys
			} else {
				a.res.Key = keys[0]
			}
			a.settle(ctx, lingerPress, nil)
			return nil
		}})
}

// keyDownloadWait is how long press_key(download=true) waits for the file
// to start.
const keyDownloadWait = 10 * time.Second

// SelectBy says how select_option names the option: exactly one of Value,
// Label or Index (Index is used when By is "index").
type SelectBy struct {
	By    string // "value", "label" or "index"
	Value string // the value or the label
	Index int64
}

// SelectOption chooses an option of a <select> by value, label or index.
// A choice whose change listener sends a form is judged like any other
// send (declare it with submits=true).
func (m *Manager) SelectOption(ctx context.Context, c Caller, opts ActOptions, by SelectBy) (*ActResult, error) {
	return m.act(ctx, c, actSpec{verb: "select_option", opts: opts, usable: actSelect, on: onElement, watch: settleInput,
		do: func(ctx context.Context, a *act) error {
			var res struct {
				Missing        bool     `json:"missing"`
				Choices        []string `json:"choices"`
				Count          int      `json:"count"`
				DisabledOption bool     `json:"disabledOption"`
				Value          string   `json:"value"`
				Label          string   `json:"label"`
				Index          int      `json:"index"`
			}
			if err := a.b.call(ctx, a.loc.Node, page.JSSelect, &res, by.By, by.Value, by.Index); err != nil {
				return err
			}
			want := by.Value
			if by.By == "index" {
				want = fmt.Sprint(by.Index)
			}
			switch {
			case res.Missing:
				return a.failure(StatusNotFound, fmt.Sprintf("no option with %s %q among the %d of %s %q", by.By, want, res.Count, a.st.Role, a.st.Name),
					"Pick one of the options listed in choices (read_page shows the list too).").offering(res.Choices)
			case res.DisabledOption:
				return a.failure(StatusDisabled, fmt.Sprintf("the option %q is disabled", res.Label),
					"The page does not offer it now; another choice may enable it.")
			}
			a.res.Element = a.st.info()
			a.res.Selected = &SelectedOption{Value: res.Value, Label: res.Label, Index: res.Index}
			a.settle(ctx, lingerPress, a.loc.Node)
			a.fieldAfter(ctx, a.loc.Node, false)
			return nil
		}})
}

// ScrollOptions: exactly one of To ("top", "bottom"), ByY (pixels, with the
// mouse wheel) or Selector.
type ScrollOptions struct {
	ActOptions
	To  string
	ByY int64 // pixels with the wheel, positive down; 0 when not given
}

// scrollState is what page.JSScrollState reports.
type scrollState struct {
	Y        float64 `json:"y"`
	Height   float64 `json:"height"`
	View     float64 `json:"view"`
	AtBottom bool    `json:"atBottom"`
}

// Scroll moves the window: to an end, by a wheel turn, or until an element
// is in view, in the window and in every panel around it that scrolls. The
// answer is where the window settled, and the panel that moved.
func (m *Manager) Scroll(ctx context.Context, c Caller, so ScrollOptions) (*ActResult, error) {
	on := onPage
	if so.Selector != "" {
		on = onElement
	}
	return m.act(ctx, c, actSpec{verb: "scroll", opts: so.ActOptions, usable: actScroll, on: on, watch: settleInput,
		do: func(ctx context.Context, a *act) error {
			b := a.b
			s := b.conn.Session(a.tab.SessionID)
			main := cdp.FrameID(a.tab.ID)
			var before scrollState
			if err := b.worlds.CallFunction(ctx, s, main, page.JSScrollState, &before, 0); err != nil {
				return err
			}
			expectMove := false
			var panel *struct {
				Panel    string  `json:"panel"`
				Y        float64 `json:"y"`
				Height   float64 `json:"height"`
				View     float64 `json:"view"`
				AtBottom bool    `json:"atBottom"`
			}
			switch {
			case a.loc != nil:
				// Into the middle of the window and of each panel around it
				// that scrolls; the answer names the panel that moved.
				if err := b.call(ctx, a.loc.Node, page.JSScrollPanels, &panel); err != nil {
					return err
				}
				a.res.Element = a.st.info()
			case so.To != "":
				if err := b.worlds.CallFunction(ctx, s, main, page.JSScrollTo, nil, so.To); err != nil {
					return err
				}
			default:
				// The wheel where a person's pointer would be: the middle
				// of the viewport.
				var vp struct {
					W float64 `json:"w"`
					H float64 `json:"h"`
				}
				if err := b.worlds.CallFunction(ctx, s, main, `function() { return {w: innerWidth, h: innerHeight}; }`, &vp); err != nil {
					return err
				}
				if err := page.MouseWheel(ctx, s, math.Floor(vp.W/2), math.Floor(vp.H/2), float64(so.ByY)); err != nil {
					return err
				}
				expectMove = (so.ByY > 0 && !before.AtBottom) || (so.ByY < 0 && before.Y > 0)
			}
			var after scrollState
			if err := b.worlds.CallFunction(ctx, s, main, page.JSScrollState, &after, 1500, expectMove, before.Y); err != nil {
				return err
			}
			moved := after.Y != before.Y || panel != nil
			a.res.Scroll = &ScrollPosition{Y: int64(after.Y), Height: int64(after.Height), ViewportHeight: int64(after.View), AtBottom: after.AtBottom, Moved: moved}
			if panel != nil {
				a.res.Scroll.Panel = &PanelScroll{Element: panel.Panel, Y: int64(panel.Y), Height: int64(panel.Height), ViewportHeight: int64(panel.View), AtBottom: panel.AtBottom}
			}
			a.res.Hints = append(a.res.Hints, scrollHint(so, a.loc != nil, before, after, moved)...)
			return nil
		}})
}

// scrollHint says why the window did not move, or that the bottom was
// reached.
func scrollHint(so ScrollOptions, toElement bool, before, after scrollState, moved bool) []string {
	if !moved {
		why := "The window did not move"
		switch {
		case toElement:
			why = "Nothing moved: the element was already in view"
		case so.To == "bottom" || so.ByY > 0:
			if before.AtBottom {
				why += ": it is already at the bottom"
			}
		case so.To == "top" || so.ByY < 0:
			if before.Y == 0 {
				why += ": it is already at the top"
			}
		}
		if toElement {
			return []string{why + "."}
		}
		return []string{why + ". Content that scrolls inside its own panel moves with scroll(selector=...) on an element inside it."}
	}
	if (so.To == "bottom" || so.ByY > 0) && after.AtBottom {
		return []string{"At the bottom. A page that loads more as you reach the end grows after a moment: scroll(to=\"bottom\") again until at_bottom stays true."}
	}
	return nil
}
