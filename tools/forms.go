package tools

import (
	"context"

	"github.com/lyrad/lyrad/session"
)

// formTools are the form reads: read_form and read_draft. (set_editor,
// upload_file, save_draft and publish act, and go through the acting
// pipeline.)
func formTools(d Deps) []*tool {
	m := d.Session
	integer := func(desc string) map[string]any { return map[string]any{"type": "integer", "description": desc} }
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	list := func(desc string) map[string]any { return map[string]any{"type": "array", "description": desc} }
	boolean := func(desc string) map[string]any { return map[string]any{"type": "boolean", "description": desc} }
	return []*tool{
		{
			name:  "read_form",
			title: "Read a form's fields",
			description: "List a form's fields with their name, type, label and options — what read_page's text loses. Use it before filling a form you have not seen.\n" +
				"root is a CSS selector for the form (default: the first form, else the whole page); whole_page=true lists every control of the page, for pickers and dialogs attached outside the form. Open shadow roots and frames inside the form are included.\n" +
				"Each field has usable: false means it is hidden or disabled right now, so acting on it will fail. Hidden inputs are counted, not listed; password values are never shown; values are cut. editors lists rich-text editors (write them with set_editor); drafts lists the publish-state controls and state the checked ones; submitText names the controls that send the form (save_draft's and publish's submit).\n" +
				"A read: it asks no approval and never claims the browser.",
			readOnly:   true,
			idempotent: true,
			params: []param{
				{name: "root", kind: "string", description: "CSS selector of the form to read (default: the first form on the page)."},
				{name: "whole_page", kind: "boolean", description: "List every control of the page, not only the form's.", def: false},
				{name: "max_fields", kind: "integer", description: "Most fields to list (1 to 500).", def: session.FormMaxFieldsDefault},
			},
			output: map[string]any{
				"url":         str("the tab's URL"),
				"title":       str("its title"),
				"scope":       str("what was read: form#id, or page"),
				"fields":      list("the fields: tag, type, name, id, label, required, disabled, usable, and options (at most 60; optionCount when more), accept and multiple, checked, or value"),
				"buttons":     list("the buttons: tag, type, name, value, text, usable, selector"),
				"editors":     list("rich-text editors: kind, selector, content excerpt, chars, and the field the form posts for it with fieldChars"),
				"drafts":      list("publish-state controls: name, value, checked, label, selector"),
				"state":       list("the checked publish controls, by label"),
				"submitText":  list("what the submit buttons say"),
				"hiddenCount": integer("hidden inputs (counted, not listed)"),
				"fieldCount":  integer("fields listed"),
				"totalFields": integer("fields in the form (more than fieldCount when truncated)"),
				"truncated":   boolean("more fields than max_fields"),
			},
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				if argGiven(c, "root") && c.str("root") == "" {
					return nil, badArg("root", "root is empty", "Leave it out to read the first form.")
				}
				o := session.FormOptions{
					Root: c.str("root"), WholePage: c.boolean("whole_page"),
					MaxFields: clamp(int(argInt(c, "max_fields")), 1, session.FormMaxFieldsLimit),
				}
				r, err := m.ReadForm(ctx, c.caller, o)
				if err != nil {
					return nil, err
				}
				c.note("fields", r.FieldCount)
				return map[string]any{
					"url": r.URL, "title": r.Title, "scope": r.Scope,
					"fields": nonNil(r.Fields), "buttons": nonNil(r.Buttons), "editors": nonNil(r.Editors),
					"drafts": nonNil(r.Drafts), "state": nonNil(r.State), "submitText": nonNil(r.SubmitText),
					"hiddenCount": r.HiddenCount, "fieldCount": r.FieldCount, "totalFields": r.TotalFields,
					"truncated": r.Truncated,
				}, nil
			},
		},
		{
			name:  "read_draft",
			title: "Read what a form is about to send",
			description: "Collect what the page's form is about to send, for a human to approve before save_draft or publish: the filled fields (checked boxes only), each editor's content (which read_page never shows), the attachments with the chosen file names, the submit buttons, the publish state, and isDraft (the state reads private).\n" +
				"max_chars cuts each value and excerpt (80 to 4000, default 400). Password values are never shown; hidden inputs are counted.\n" +
				"A read: nothing is changed or sent, no approval is asked.",
			readOnly:   true,
			idempotent: true,
			params: []param{
				{name: "max_chars", kind: "integer", description: "Most characters of each value and editor excerpt (80 to 4000).", def: session.DraftMaxCharsDefault},
			},
			output: map[string]any{
				"url":         str("the tab's URL"),
				"title":       str("its title"),
				"scope":       str("what was read: form#id, or page"),
				"fields":      list("fields with what they send: name, label, type, value (cut; valueChars when cut), usable"),
				"editors":     list("rich-text editors with their content, and the field the form posts for each with fieldChars"),
				"attachments": list("file inputs with the names of the chosen files"),
				"state":       list("the checked publish controls: name, value, label"),
				"submits":     list("the controls that send the form"),
				"isDraft":     boolean("the publish state reads private: save_draft would send it"),
				"fieldCount":  integer("fields listed"),
				"hiddenCount": integer("hidden inputs (counted, not listed)"),
			},
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				n := clamp(int(argInt(c, "max_chars")), session.DraftMaxCharsMin, session.DraftMaxCharsMax)
				r, err := m.ReadDraft(ctx, c.caller, n)
				if err != nil {
					return nil, err
				}
				c.note("fields", r.FieldCount)
				c.note("editors", len(r.Editors))
				return map[string]any{
					"url": r.URL, "title": r.Title, "scope": r.Scope,
					"fields": nonNil(r.Fields), "editors": nonNil(r.Editors), "attachments": nonNil(r.Attachments),
					"state": nonNil(r.State), "submits": nonNil(r.Submits), "isDraft": r.IsDraft,
					"fieldCount": r.FieldCount, "hiddenCount": r.HiddenCount,
				}, nil
			},
		},
	}
}

func clamp(n, lo, hi int) int { return max(lo, min(n, hi)) }

// nonNil answers an empty list rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
