package session

import (
	"context"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/lyrad/lyrad/page"
)

// MaxEvalResult bounds the JSON an evaluation answers, in bytes.
const MaxEvalResult = 8000

// Evaluate runs an agent's JavaScript function in lyrad's isolated world
// (never the page's own, and without Runtime.enable) on the element
// opts.Selector names, or on the page. It is an acting call like any: the
// INTERACT grant on the document it runs in, an audit row, a watch on what
// it sets off, whose requests the guard judges (a form it sends or a
// location it sets to a site nothing granted is refused before it leaves:
// blocked_by_policy). It answers the function's result as JSON, cut to
// MaxEvalResult bytes. The front end decides whether agents may call it.
func (m *Manager) Evaluate(ctx context.Context, c Caller, opts ActOptions, fn string) (*ActResult, string, error) {
	on := onPage
	if opts.Selector != "" {
		on = onElement
	}
	var out string
	res, err := m.act(ctx, c, actSpec{verb: "evaluate", opts: opts, usable: actScroll, on: on, watch: settleInput,
		do: func(ctx context.Context, a *act) error {
			var n *page.Node
			if a.loc != nil {
				n = a.loc.Node
				a.res.Element = a.st.info()
			}
			v, err := page.Evaluate(ctx, a.b.conn, &a.b.worlds, a.mainFrame(), n, fn)
			if err != nil {
				var se *page.ScriptError
				if errors.As(err, &se) {
					return newError(StatusError, "the function threw: "+se.Text, "Fix the function; it runs in an isolated world, which shares the page's DOM but not its globals.")
				}
				return err
			}
			out = cutJSON(v, MaxEvalResult)
			a.settle(ctx, lingerPress, n)
			return nil
		}})
	if err != nil {
		return nil, "", err
	}
	return res, out, nil
}

// cutJSON cuts s to at most max bytes on a character boundary, saying so.
func cutJSON(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (cut at " + strconv.Itoa(cut) + " of " + strconv.Itoa(len(s)) + " bytes)"
}
