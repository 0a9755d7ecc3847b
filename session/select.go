package session

import (
	"context"
	"fmt"

	"github.com/lyrad/lyrad/page"
)

// SelectBy says how select_option names the option: exactly one of Value,
// Label or Index (Index is used when By is "index").
type SelectBy struct {
	By    string // "value", "label" or "index"
	Value string // the value or the label
	Index int64
}

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
		if err := ac.b.call(actx, n, page.JSSelect, &res, by.By, by.Value, by.Index); err != nil {
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
