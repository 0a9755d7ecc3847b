package tools

import (
	"context"

	"github.com/lyrad/lyrad/session"
)

// formActTools are the form tools that act: set_editor, upload_file,
// save_draft and publish. Writing an item and releasing it stay apart:
// save_draft sends only a form whose publish state reads private and asks
// for SUBMIT; publish alone asks for PUBLISH.
func formActTools(d Deps) []*tool {
	m := d.Session
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	integer := func(desc string) map[string]any { return map[string]any{"type": "integer", "description": desc} }
	boolean := func(desc string) map[string]any { return map[string]any{"type": "boolean", "description": desc} }
	common := func(extra map[string]any) map[string]any {
		out := map[string]any{
			"url": str("where the tab stands"), "title": str("its title"), "tab_count": integer("open tabs"),
			"navigated": boolean("the tab loaded a new page"), "new_tab": boolean("a tab opened and the session is on it"),
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	timeoutParam := param{name: "timeout_ms", kind: "integer", description: "Bound on the action once its target is usable, in ms (default 10000, at most 30000)."}
	reasonParam := param{name: "reason", kind: "string", description: "Why; shown to the user when approval is asked."}
	confirmParam := param{name: "confirm", kind: "boolean", description: "Legacy consent for clients that cannot be asked; never overrides a user's answer."}
	submitParam := param{name: "submit", kind: "string", description: "The control that sends the form (read_form's submitText): " + selectorHelp}
	sent := func(r *session.ActResult, out map[string]any) {
		s := r.Sent
		if s == nil {
			return
		}
		out["published"] = s.Published
		state := []map[string]any{}
		for _, p := range s.State {
			state = append(state, map[string]any{"name": p.Name, "value": p.Value, "label": p.Label})
		}
		out["state"] = state
		if len(s.Errors) > 0 {
			out["errors"] = s.Errors
		}
		if s.Alert != "" {
			out["alert"] = s.Alert
		}
	}
	needsSubmit := func(tool string) error {
		return &session.Error{Status: session.StatusNeedsSubmit, Message: tool + " needs submit, the control that sends the form: nothing was done",
			Hint:   "read_form lists the candidates in submitText; pass the one that sends this form as submit.",
			Fields: map[string]any{"argument": "submit"}}
	}
	return []*tool{
		{
			name:  "set_editor",
			title: "Write into a rich-text editor",
			description: "Write the body of a rich-text editor (CKEditor, TinyMCE, contenteditable, Quill, ProseMirror) and sync the field the form actually posts. Leave selector out for the first editor on the page.\n" +
				"html=true writes markup; otherwise the text is written as text. The reply names the surface written, the characters written, and synced_field with field_chars (what the form will post). The content is never echoed or audited, only its length.\n" +
				"Set submits=true if writing sends the form. Fails like click (not_found before anything is asked, hidden, disabled, timeout).",
			params: []param{
				{name: "content", kind: "string", required: true, description: "What the editor should hold."},
				{name: "selector", kind: "string", description: "The editor's iframe or editable element (default: the first editor): " + selectorHelp},
				{name: "html", kind: "boolean", description: "Write content as markup.", def: false},
				{name: "submits", kind: "boolean", description: "true when writing sends the form."},
				timeoutParam, reasonParam, confirmParam,
			},
			output: common(map[string]any{
				"surface": str("what was written: an editor iframe's body, or the editable element"), "written": integer("characters written"),
				"synced_field": str("the field the form posts for this editor"), "field_chars": integer("characters that field holds now"),
			}),
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				opts, err := actOptions(c, true)
				if err != nil {
					return nil, err
				}
				opts.Intent.Submit = c.boolean("submits")
				content := c.str("content")
				c.note("content_chars", len([]rune(content)))
				res, err := m.SetEditor(ctx, c.caller, session.EditorOptions{ActOptions: opts, Content: content, HTML: c.boolean("html")})
				return actReply(res, err, func(r *session.ActResult, out map[string]any) {
					if e := r.Editor; e != nil {
						out["editor"], out["surface"], out["written"] = e.Kind, e.Surface, e.Written
						if e.SyncedField != "" {
							out["synced_field"], out["field_chars"] = e.SyncedField, e.FieldChars
						}
					}
				})
			},
		},
		{
			name:  "upload_file",
			title: "Attach files to a file input",
			description: "Attach local files to an input[type=file] (a hidden one is fine: styled pickers hide it). Every call asks the user (UPLOAD, single-use).\n" +
				"Paths are checked before anything: missing ones answer error with missing; files outside the upload roots (LYRA_BROWSER_UPLOAD_ROOTS, default your home), in lyrad's data directory, or in a dot directory such as ~/.ssh are refused. Symlinks count where they lead.",
			params: []param{
				{name: "selector", kind: "string", required: true, description: "The input[type=file]: " + selectorHelp},
				{name: "paths", kind: "array", required: true, description: "Absolute paths of the files to attach."},
				timeoutParam, reasonParam, confirmParam,
			},
			output: common(map[string]any{"files": map[string]any{"type": "array", "description": "attached: name, bytes"}}),
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				opts, err := actOptions(c, true)
				if err != nil {
					return nil, err
				}
				paths, _ := c.args["paths"].([]string)
				res, err := m.UploadFile(ctx, c.caller, opts, paths)
				if res != nil {
					files := []map[string]any{}
					for _, f := range res.Files {
						files = append(files, map[string]any{"path": f.Path, "bytes": f.Bytes})
					}
					c.note("files", files)
				}
				return actReply(res, err, func(r *session.ActResult, out map[string]any) {
					files := []map[string]any{}
					for _, f := range r.Files {
						files = append(files, map[string]any{"name": f.Name, "bytes": f.Bytes})
					}
					out["files"] = files
					if r.Element != nil {
						out["input"] = element(r.Element)
					}
				})
			},
		},
		{
			name:  "save_draft",
			title: "Save the item without publishing it",
			description: "Send the form while the item stays private: the form's publish state must read draft/private, else not_private and nothing is sent. Asks for SUBMIT, never PUBLISH, so it cannot release an item. To release one, use publish.\n" +
				"After sending, the page is read back: a site that answers with errors gives refused with its message.",
			params: []param{submitParam, timeoutParam, reasonParam, confirmParam},
			output: common(map[string]any{
				"published": boolean("always false"), "state": map[string]any{"type": "array", "description": "the publish state sent"},
				"errors": map[string]any{"type": "array", "description": "what the page showed as errors"}, "alert": str("the first of them"),
			}),
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				if c.str("submit") == "" {
					return nil, needsSubmit("save_draft")
				}
				opts, err := actOptions(c, false)
				if err != nil {
					return nil, err
				}
				res, err := m.SaveDraft(ctx, c.caller, c.str("submit"), opts)
				return actReply(res, err, sent)
			},
		},
		{
			name:  "publish",
			title: "Publish the item",
			description: "Release an item to its audience: sets the live control (selector, from read_form's drafts), then sends the form with submit. Both are required; arming without sending is refused (needs_submit).\n" +
				"Asks for PUBLISH, which nothing else implies and no trusted list answers; the prompt names the item. Call it only after the user approved this exact item (read_draft shows it). Answers ok with published, or refused with the site's message.",
			destructive: true,
			params: []param{
				{name: "selector", kind: "string", required: true, description: "The control that makes the item public: " + selectorHelp},
				submitParam, timeoutParam, reasonParam, confirmParam,
			},
			output: common(map[string]any{
				"published": boolean("the item was sent live"), "state": map[string]any{"type": "array", "description": "the publish state sent"},
				"errors": map[string]any{"type": "array", "description": "what the page showed as errors"}, "alert": str("the first of them"),
			}),
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				if c.str("submit") == "" {
					return nil, needsSubmit("publish")
				}
				opts, err := actOptions(c, false)
				if err != nil {
					return nil, err
				}
				res, err := m.Publish(ctx, c.caller, c.str("selector"), c.str("submit"), opts)
				return actReply(res, err, sent)
			},
		},
	}
}
