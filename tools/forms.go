package tools

import (
	"context"

	"github.com/lyrad/lyrad/page"
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
			params: []Param{
				{Name: "root", Kind: "string", Description: "CSS of the form (default: the first)."},
				{Name: "whole_page", Kind: "boolean", Description: "Every control of the page.", Default: false},
				{Name: "max_fields", Kind: "integer", Description: "1 to 500.", Default: session.FormMaxFieldsDefault},
			},
			output: outOf[formReply](),
			run: func(ctx context.Context, c *call) (any, error) {
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
				return formReply{
					formBase: formBase{URL: r.URL, Title: r.Title, Scope: r.Scope, FieldCount: r.FieldCount, HiddenCount: r.HiddenCount},
					Fields:   nonNil(r.Fields), Buttons: nonNil(r.Buttons), Editors: nonNil(r.Editors),
					Drafts: nonNil(r.Drafts), State: nonNil(r.State), SubmitText: nonNil(r.SubmitText),
					TotalFields: r.TotalFields, Truncated: r.Truncated,
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
			params: []Param{
				{Name: "max_chars", Kind: "integer", Description: "Per value and excerpt, 80 to 4000.", Default: session.DraftMaxCharsDefault},
			},
			output: outOf[draftReply](),
			run: func(ctx context.Context, c *call) (any, error) {
				n := clamp(int(argInt(c, "max_chars")), session.DraftMaxCharsMin, session.DraftMaxCharsMax)
				r, err := m.ReadDraft(ctx, c.caller, n)
				if err != nil {
					return nil, err
				}
				c.note("fields", r.FieldCount)
				c.note("editors", len(r.Editors))
				return draftReply{
					formBase: formBase{URL: r.URL, Title: r.Title, Scope: r.Scope, FieldCount: r.FieldCount, HiddenCount: r.HiddenCount},
					Fields:   nonNil(r.Fields), Editors: nonNil(r.Editors), Attachments: nonNil(r.Attachments),
					State: nonNil(r.State), Submits: nonNil(r.Submits), IsDraft: r.IsDraft,
				}, nil
			},
		},
	}
}

// formBase is what read_form and read_draft both answer. Their lists
// are page's, as its scripts read them.
type formBase struct {
	URL         string `json:"url"`
	Title       string `json:"title"`
	Scope       string `json:"scope" desc:"form#id, or page"`
	FieldCount  int    `json:"fieldCount"`
	HiddenCount int    `json:"hiddenCount" desc:"hidden inputs, not listed"`
}

type formReply struct {
	formBase
	Fields      []page.FormField      `json:"fields" desc:"tag, type, name, id, label, required, disabled, usable, options, checked, value"`
	Buttons     []page.FormButton     `json:"buttons"`
	Editors     []page.FormEditor     `json:"editors" desc:"kind, selector, excerpt, chars, field, fieldChars"`
	Drafts      []page.PublishControl `json:"drafts" desc:"publish-state controls"`
	State       []string              `json:"state" desc:"the checked publish controls"`
	SubmitText  []string              `json:"submitText"`
	TotalFields int                   `json:"totalFields"`
	Truncated   bool                  `json:"truncated" desc:"more than max_fields"`
}

type draftReply struct {
	formBase
	Fields      []page.DraftField   `json:"fields" desc:"name, label, type, value (cut: valueChars), usable"`
	Editors     []page.FormEditor   `json:"editors"`
	Attachments []page.Attachment   `json:"attachments"`
	State       []page.PublishState `json:"state" desc:"the checked publish controls"`
	Submits     []page.SubmitButton `json:"submits"`
	IsDraft     bool                `json:"isDraft"`
}

func clamp(n, lo, hi int) int { return max(lo, min(n, hi)) }

// nonNil answers an empty list rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
