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
	submitParam := param{name: "submit", kind: "string", description: "A read_form submitText (button text), CSS or aria-ref."}
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
			Hint:     "read_form lists the candidates in submitText; pass the one that sends this form as submit.",
			Argument: "submit"}
	}
	return []*tool{
		{
			name:  "set_editor",
			title: "Write into a rich-text editor",
			description: "Write content into a rich-text editor (CKEditor, TinyMCE, Quill, ProseMirror, contenteditable) and sync the field the form posts. " +
				actConsent + " Fails like click.",
			params: []param{
				{name: "content", kind: "string", required: true, description: "What the editor should hold."},
				{name: "selector", kind: "string", description: "Default: the first editor. " + selectorHelp},
				{name: "html", kind: "boolean", description: "content is markup.", def: false},
				submitsParam,
				timeoutParam, reasonParam, confirmParam,
			},
			output: merge(actOut, map[string]any{
				"editor": sStr(""), "surface": sStr(""), "written": sInt("characters"),
				"synced_field": sStr("the field the form posts"), "field_chars": sInt(""),
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
			description: "Attach local files to a file input (hidden ones too); asks UPLOAD every call. " +
				"Files outside LYRA_BROWSER_UPLOAD_ROOTS (default home), in lyrad's data or under a dot directory are refused.",
			params: []param{
				{name: "selector", kind: "string", required: true, description: "The file input."},
				{name: "paths", kind: "array", required: true, description: "Absolute paths."},
				timeoutParam, reasonParam, confirmParam,
			},
			output: merge(targetOut, map[string]any{"files": sArr("name, bytes"), "input": elementOut}),
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
			description: "Send the form with submit while the item stays private: its publish state must read draft, else not_private and nothing is sent. " +
				"Asks SUBMIT, never PUBLISH. The site's errors: refused.",
			params: []param{submitParam, timeoutParam, reasonParam, confirmParam},
			output: sentOut,
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
			description: "Release an item, only once the user approved it (read_draft): set the live control (selector, from read_form drafts), send with submit. " +
				"Asks PUBLISH, single-use. Answers published, or refused. More: lyrad://guide.",
			destructive: true,
			params: []param{
				{name: "selector", kind: "string", required: true, description: "The live control (read_form drafts)."},
				submitParam, timeoutParam, reasonParam, confirmParam,
			},
			output: sentOut,
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
