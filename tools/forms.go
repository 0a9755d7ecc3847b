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
	return []*tool{
		{
			name:  "read_form",
			title: "Read a form's fields",
			description: "A form's fields (name, type, label, value, options, usable), buttons, editors (for set_editor), publish-state controls (drafts) " +
				"and submitText (the submit of save_draft and publish). A read. More: lyrad://guide.",
			readOnly:   true,
			idempotent: true,
			params: []param{
				{name: "root", kind: "string", description: "CSS of the form (default: the first)."},
				{name: "whole_page", kind: "boolean", description: "Every control of the page.", def: false},
				{name: "max_fields", kind: "integer", description: "1 to 500.", def: session.FormMaxFieldsDefault},
			},
			output: merge(formOut, map[string]any{
				"fields":  sArr("tag, type, name, id, label, required, disabled, usable, options, checked, value"),
				"buttons": sArr(""), "editors": sArr("kind, selector, excerpt, chars, field, fieldChars"), "drafts": sArr("publish-state controls"),
				"submitText": sArr(""), "totalFields": sInt(""), "truncated": sBool("more than max_fields"),
			}),
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
			description: "What the form is about to send (fields, editors, attachments, publish state, isDraft), for the user to approve before save_draft or publish. " +
				"A read.",
			readOnly:   true,
			idempotent: true,
			params: []param{
				{name: "max_chars", kind: "integer", description: "Per value and excerpt, 80 to 4000.", def: session.DraftMaxCharsDefault},
			},
			output: merge(formOut, map[string]any{
				"fields": sArr("name, label, type, value (cut: valueChars), usable"), "editors": sArr(""), "attachments": sArr(""),
				"submits": sArr(""), "isDraft": sBool(""),
			}),
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

// formOut is what read_form and read_draft both answer.
var formOut = map[string]any{
	"url": sStr(""), "title": sStr(""), "scope": sStr("form#id, or page"), "state": sArr("the checked publish controls"),
	"fieldCount": sInt(""), "hiddenCount": sInt("hidden inputs, not listed"),
}

func clamp(n, lo, hi int) int { return max(lo, min(n, hi)) }

// nonNil answers an empty list rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
