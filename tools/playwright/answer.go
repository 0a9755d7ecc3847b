package playwright

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/session"
	"github.com/lyrad/lyrad/tools"
)

// answer is a reply in Playwright MCP's sections, each written when set.
type answer struct {
	lines    []string // ### Result
	pageSet  bool
	url      string
	title    string
	tabs     *session.TabList // ### Open tabs
	modal    []string         // ### Modal state
	events   []string         // ### Events
	snapshot string           // ### Snapshot (YAML)
	snapNote string           // said instead of, or after, the snapshot
	pageText string           // ### Page text: what the snapshot does not list
	content  []mcp.Content    // an image, after the text
}

func (a *answer) say(format string, args ...any) {
	a.lines = append(a.lines, fmt.Sprintf(format, args...))
}

func (a *answer) page(url, title string) { a.pageSet, a.url, a.title = true, url, title }

// text is the answer's Markdown.
func (a *answer) text() string {
	var b strings.Builder
	sec := func(name string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("### " + name + "\n")
	}
	if len(a.lines) > 0 {
		sec("Result")
		b.WriteString(strings.Join(a.lines, "\n"))
	}
	if a.tabs != nil && len(a.tabs.Tabs) > 0 {
		sec("Open tabs")
		b.WriteString(tabLines(a.tabs))
	}
	if a.pageSet {
		sec("Page")
		b.WriteString("- Page URL: " + a.url)
		if a.title != "" {
			b.WriteString("\n- Page Title: " + a.title)
		}
	}
	if len(a.modal) > 0 {
		sec("Modal state")
		b.WriteString(strings.Join(a.modal, "\n"))
	}
	if a.snapshot != "" || a.snapNote != "" {
		sec("Snapshot")
		if a.snapshot != "" {
			b.WriteString("```yaml\n" + a.snapshot + "\n```")
			if a.snapNote != "" {
				b.WriteByte('\n')
			}
		}
		b.WriteString(a.snapNote)
	}
	if a.pageText != "" {
		sec("Page text")
		b.WriteString(a.pageText)
	}
	if len(a.events) > 0 {
		sec("Events")
		b.WriteString(strings.Join(a.events, "\n"))
	}
	return b.String()
}

// tabLines is the tab list as Playwright MCP prints it.
func tabLines(l *session.TabList) string {
	lines := make([]string, 0, len(l.Tabs))
	for _, t := range l.Tabs {
		cur := ""
		if t.Active {
			cur = "(current) "
		}
		lines = append(lines, fmt.Sprintf("- %d: %s[%s](%s)", t.Index, cur, t.Title, t.URL))
	}
	return strings.Join(lines, "\n")
}

// result is the reply: the sections, or ### Error with what was done
// before the refusal (a click whose navigation the guard stopped).
func (a *answer) reply(err error) *mcp.CallToolResult {
	if err == nil {
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.text()}}}
		res.Content = append(res.Content, a.content...)
		return res
	}
	status, msg, hint, done := refusal(err)
	var b strings.Builder
	b.WriteString("### Error\n")
	b.WriteString("Error: " + msg)
	if status != session.StatusError {
		b.WriteString(" (" + status + ")")
	}
	if hint != "" {
		b.WriteString("\n" + hint)
	}
	text := b.String()
	if done != nil {
		rest := &answer{}
		rest.acted(done)
		if t := rest.text(); t != "" {
			text += "\n" + t
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}

// refusal reads an error as this surface answers it: the status, the
// message, the next move and what the call did before it was refused.
// It is the one place that reads session's error type.
func refusal(err error) (status, msg, hint string, done *session.ActResult) {
	if err == nil {
		return session.StatusOK, "", "", nil
	}
	var ae *tools.ArgError
	var se *session.Error
	switch {
	case errors.As(err, &ae):
		return session.StatusError, ae.Msg, ae.Hint, nil
	case errors.As(err, &se):
		status, msg, hint = se.Status, se.Message, se.Hint
		if msg == "" {
			msg = se.Error()
		}
		// Facts the refusal carries (the origin, the capability, the
		// selector), one line, in a stable order.
		var facts []string
		fields := tools.ErrorFacts(se)
		for k, v := range fields {
			if k == "hint" || k == "argument" {
				continue
			}
			facts = append(facts, fmt.Sprintf("%s=%v", k, v))
		}
		sort.Strings(facts)
		if len(facts) > 0 {
			msg += " [" + strings.Join(facts, ", ") + "]"
		}
		done = se.Result
		if status == session.StatusApprovalRequired {
			capab, _ := fields["capability"].(string)
			origin, _ := fields["origin"].(string)
			return status, audit.ScrubText(msg), audit.ScrubText(approvalHint(capab, origin, se.Approval)), done
		}
	default:
		status, msg, hint = session.StatusError, err.Error(), "Retry; if it persists, call browser_close and navigate again."
	}
	hint = pwHint(status, hint)
	return status, audit.ScrubText(pwHint("", msg)), audit.ScrubText(hint), done
}

// pwHint rewrites a next move that names lyrad's own tools or arguments
// into this surface's terms.
func pwHint(status, hint string) string {
	switch status {
	case session.StatusNotOpen:
		return "Call browser_navigate to open the browser."
	}
	r := strings.NewReplacer(
		"read_page(mode=\"tree\")", "browser_snapshot", "read_page", "browser_snapshot",
		"open_browser", "browser_navigate", "close_browser", "browser_close",
		"wait_for(", "browser_wait_for(", "handle_dialog", "browser_handle_dialog",
		"request_takeover", "browser_request_takeover", "resume_after_takeover", "browser_resume_after_takeover",
		"upload_file", "browser_file_upload", "press_key", "browser_press_key", "type_text", "browser_type",
		"select_option", "browser_select_option", "go_back", "browser_navigate_back",
	)
	return r.Replace(hint)
}

// approvalHint says who can approve what a client that cannot ask its
// user was refused, and how: this surface has no confirm argument, so the
// model's word is never consent. ref, when set, is the pending approval
// the user answers at a terminal.
func approvalHint(capab, origin string, ref *session.ApprovalRef) string {
	if origin == "" {
		origin = "the site"
	}
	head := "This MCP client cannot ask its user (it declared no elicitation support), and lyrad does not take the model's word for consent. "
	if ref != nil {
		head += "Tell the user what was asked; if they agree, ask them to run: " + ref.Command + " (within " + ref.Within.String() + "), then repeat this same call. " +
			"They can also approve it by using an MCP client that supports elicitation"
	} else {
		head += "Tell the user what was asked; they approve it by using an MCP client that supports elicitation"
	}
	switch capab {
	case "NAVIGATE", "INTERACT":
		return head + ", or the operator trusts " + origin + " (lyrad --allowed-origins " + origin + ", or LYRA_BROWSER_TRUSTED_ORIGINS) and restarts lyrad. Then repeat the call."
	case "SUBMIT", "UPLOAD":
		return head + ", or the operator trusts " + origin + " for sends (LYRA_BROWSER_TRUSTED_SEND_ORIGINS) and restarts lyrad. Then repeat the call."
	}
	return head + ": " + capab + " is asked of the user each time. Then repeat the call."
}

// acted adds what an acting call set off: where the tab stands, the tabs
// when one opened, the dialogs it answered, the file it kept.
func (a *answer) acted(r *session.ActResult) {
	if r == nil {
		return
	}
	if r.URL != "" {
		a.page(r.URL, r.Title)
	}
	if r.NewTab {
		a.events = append(a.events, "- A new tab opened; the session is on it (browser_tabs lists them).")
	}
	for _, d := range r.Dialogs {
		answer := "dismissed"
		if d.Accepted {
			answer = "accepted"
		}
		how := "by default (alert and beforeunload yes, confirm and prompt no)"
		if d.By != "default" {
			how = "as browser_handle_dialog armed"
		}
		a.events = append(a.events, fmt.Sprintf("- %q dialog with message %q was %s %s: lyrad answers a dialog as it opens.", d.Type, d.Message, answer, how))
	}
	if r.DialogsMore > 0 {
		a.events = append(a.events, fmt.Sprintf("- %d more dialogs were answered.", r.DialogsMore))
	}
	if d := r.Download; d != nil {
		a.events = append(a.events, fmt.Sprintf("- Downloaded file %s to %s (%d bytes, from %s)", d.Filename, d.Path, d.Bytes, d.URLOrigin))
	}
	if r.Navigating {
		a.events = append(a.events, "- The page was still loading when the action returned.")
	}
	for _, h := range r.Hints {
		a.events = append(a.events, "- "+pwHint("", h))
	}
}

func badArg(arg, msg, hint string) error { return &tools.ArgError{Arg: arg, Msg: msg, Hint: hint} }

// refused is a tool or an argument this surface does not do, and why.
func refused(what, why string) error {
	return &tools.ArgError{Msg: what + " is not available in lyrad", Hint: why}
}
