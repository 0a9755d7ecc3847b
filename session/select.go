package session

import (
	"context"
	"fmt"
)

// SelectBy says how select_option names the option: exactly one of Value,
// Label or Index (Index is used when By is "index").
type SelectBy struct {
	By    string // "value", "label" or "index"
	Value string // the value or the label
	Index int64
}

// jsSelect chooses an option of the <select> `this` and fires input and
// change the way a person's choice does (a page listens for those). It
// answers what was chosen, or why nothing was.
const jsSelect = `function(by, want, index) {
  const opts = Array.from(this.options);
  let i = -1;
  if (by === 'index') i = index;
  else if (by === 'value') i = opts.findIndex(o => o.value === want);
  else i = opts.findIndex(o => o.label.trim() === want.trim() || o.text.trim() === want.trim());
  const choices = opts.slice(0, 30).map(o => o.label.trim() || o.value);
  if (i < 0 || i >= opts.length) return {missing: true, choices, count: opts.length};
  const o = opts[i];
  if (o.disabled || (o.parentElement && o.parentElement.tagName === 'OPTGROUP' && o.parentElement.disabled))
    return {disabledOption: true, label: o.label.trim()};
  if (this.selectedIndex !== i) {
    this.selectedIndex = i;
    this.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
    this.dispatchEvent(new Event('change', {bubbles: true}));
  }
  return {value: o.value, label: o.label.trim(), index: i};
}`

// SelectOption chooses an option of a <select> by value, label or index.
// The usability check (found, visible, enabled, a select list) runs before
// anything is asked; a choice whose change listener sends a form is judged
// like any other send (declare it with submits=true).
func (m *Manager) SelectOption(ctx context.Context, c Caller, opts ActOptions, by SelectBy) (map[string]any, error) {
	return m.onElement(ctx, c, opts, actSelect, func(actx context.Context, e *elementAction) (map[string]any, error) {
		ac, a, loc, st, w := e.ac, e.a, e.loc, e.st, e.w
		n := loc.Node
		var res struct {
			Missing        bool     `json:"missing"`
			Choices        []string `json:"choices"`
			Count          int      `json:"count"`
			DisabledOption bool     `json:"disabledOption"`
			Value          string   `json:"value"`
			Label          string   `json:"label"`
			Index          int      `json:"index"`
		}
		if err := ac.b.call(actx, n, jsSelect, &res, by.By, by.Value, by.Index); err != nil {
			return nil, ac.annotate(actx, err, "select_option")
		}
		want := by.Value
		if by.By == "index" {
			want = fmt.Sprint(by.Index)
		}
		switch {
		case res.Missing:
			return nil, ac.failure(StatusNotFound, fmt.Sprintf("no option with %s %q among the %d of %s %q", by.By, want, res.Count, st.Role, st.Name),
				"Pick one of the options listed in choices (read_page shows the list too).").
				with("choices", res.Choices).with("matches", loc.Matches)
		case res.DisabledOption:
			return nil, ac.failure(StatusDisabled, fmt.Sprintf("the option %q is disabled", res.Label),
				"The page does not offer it now; another choice may enable it.").with("matches", loc.Matches)
		}
		o := w.settle(actx, a, lingerPress, ac.drain(actx, n))
		return ac.finish(ctx, a, o, map[string]any{
			"matches":  loc.Matches,
			"selected": map[string]any{"value": res.Value, "label": res.Label, "index": res.Index},
			"select":   st.info(),
		})
	})
}
