package session

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/lyrad/lyrad/download"
	"github.com/lyrad/lyrad/page"
)

// The tools that act on a page with input. Each states its own step; the
// pipeline (act.go) does the rest.

// Click clicks the element a selector names.
func (m *Manager) Click(ctx context.Context, c Caller, opts ActOptions) (*ActResult, error) {
	return m.act(ctx, c, pointerSpec(opts, actClick))
}

// Hover moves the pointer over the element a selector names.
func (m *Manager) Hover(ctx context.Context, c Caller, opts ActOptions) (*ActResult, error) {
	return m.act(ctx, c, pointerSpec(opts, actHover))
}

// pointerSpec is click's and hover's step.
func pointerSpec(opts ActOptions, kind actKind) actSpec {
	spec := actSpec{verb: kind.verb(), opts: opts, usable: kind, on: onElement, watch: settleInput}
	if kind == actClick {
		spec.downloadWait, spec.downloadGrace = opts.Timeout, download.BlockedGrace
	}
	spec.do = func(ctx context.Context, a *act) error {
		a.res.Element = a.st.info()
		if kind == actHover {
			if err := a.hover(ctx, a.loc.Node); err != nil {
				return err
			}
			a.settle(ctx, lingerLight, a.loc.Node)
			return nil
		}
		if err := a.click(ctx, a.loc.Node); err != nil {
			return err
		}
		a.settle(ctx, lingerPress, a.loc.Node)
		if a.st.checkable() {
			a.fieldAfter(ctx, a.loc.Node, true)
		}
		return nil
	}
	return spec
}

// TypeText replaces what a text field holds with text, as typed text
// arrives (Input.insertText: beforeinput and input fire), and with submit
// presses Enter after it. An input whose value is set whole (date, time,
// datetime-local, month, week, color, range) takes text in its ISO form,
// set as a choice in its picker is (page.SetValue). The reply says what the
// field holds after (for a password, only that it is filled); the text is
// never audited.
func (m *Manager) TypeText(ctx context.Context, c Caller, opts ActOptions, text string, submit bool) (*ActResult, error) {
	return m.act(ctx, c, actSpec{verb: "type_text", opts: opts, usable: actType, on: onElement, watch: settleInput, focusFirst: !submit,
		do: func(ctx context.Context, a *act) error {
			n := a.loc.Node
			b, tab := a.b, a.b.pageTab(a.tab)
			if vt := a.st.ValueType; vt != "" {
				if err := a.setValue(ctx, n, vt, text); err != nil {
					return err
				}
			} else {
				// Focused as it was found (act.focusFirst), or now.
				focused := a.st.Focused
				if !focused {
					a.queued.timer = ""
					if !submit && a.inMainFrame(n) {
						// settleText's drain is timed from the text's
						// input event.
						a.queued.timer = page.TypingTimer()
					}
					var err error
					if focused, err = page.FocusText(ctx, b.conn, &b.worlds, n, a.queued.timer, textWait); err != nil {
						return err
					}
				}
				if !focused {
					return a.failure(StatusNotActionable, "the field did not take the focus (the page moved it elsewhere)",
						"Click the field first, then type_text again; the page may open something in front of it.")
				}
				// Keys and text go to the focused frame through the tab's
				// session.
				if err := page.TypeInto(ctx, b.conn, tab, text); err != nil {
					return err
				}
			}
			if submit {
				if err := page.Press(ctx, b.conn.Session(tab.Session), page.EnterKey); err != nil {
					return err
				}
			}
			a.res.Element, a.res.TypedChars, a.res.Submitted = a.st.info(), len([]rune(text)), submit
			if submit {
				a.settle(ctx, lingerPress, n)
			} else {
				a.settleText(ctx, n)
			}
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
	refused, err := page.SetValue(ctx, a.b.conn, &a.b.worlds, n, v)
	if err != nil {
		return err
	}
	if refused {
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

// fieldAfter puts what the field n holds now into the reply (page.FieldValue);
// onlyCheckable: only a checkbox, radio or switch (a click). A field gone
// with the page (a submit that navigated) says nothing. It is read once
// the call settled, while finish reads the rest of the answer (the two are
// reads of the same settled page), and is in before the answer is.
func (a *act) fieldAfter(ctx context.Context, n *page.Node, onlyCheckable bool) {
	if a.outcome.Navigated || a.outcome.TabClosed {
		return
	}
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	a.after.Add(1)
	go func() {
		defer a.after.Done()
		defer cancel()
		var v page.Field
		var err error
		if q := a.queued.field; q != nil {
			v, err = q.Read(qctx)
		} else {
			v, err = page.FieldValue(qctx, a.b.conn, &a.b.worlds, n)
		}
		if err != nil || !v.IsField || (onlyCheckable && !v.Checkable) {
			return
		}
		a.res.Field = &FieldValue{Value: v.Value, Checkable: v.Checkable, Checked: v.Checked, Password: v.Password, Filled: v.Filled}
	}()
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
		downloadWait: keyDownloadWait, downloadGrace: download.BlockedGrace,
		do: func(ctx context.Context, a *act) error {
			s := a.b.conn.Session(a.tab.SessionID)
			for i, ch := range chords {
				if i > 0 {
					// What the last key queued runs before the next (a
					// page that moved away ends the wait at once).
					dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
					_, _ = page.Drain(dctx, a.b.conn, &a.b.worlds, a.mainFrame())
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
			res, err := page.SelectOption(ctx, a.b.conn, &a.b.worlds, a.loc.Node, by.By, by.Value, by.Index)
			if err != nil {
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
			sp := page.ScrollSpec{To: so.To, ByY: float64(so.ByY)}
			if a.loc != nil {
				// Into the middle of the window and of each panel around it
				// that scrolls; the answer names the panel that moved.
				sp.Node = a.loc.Node
				a.res.Element = a.st.info()
			}
			r, err := page.Scroll(ctx, b.conn, &b.worlds, b.pageTab(a.tab), sp)
			if err != nil {
				return err
			}
			before, after, panel := r.Before, r.After, r.Panel
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
func scrollHint(so ScrollOptions, toElement bool, before, after page.ScrollPos, moved bool) []string {
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
