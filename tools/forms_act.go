package tools

import (
	"context"

	"github.com/lyrad/lyrad/session"
)

// formActTools are the form tools that act: set_editor, upload_file,
// save_draft and publish. Writing an item and releasing it stay apart:
// save_draft sends only a form whose publish state reads private and asks
// for SUBMIT; publish alone asks for PUBLISH.
// The replies of the form tools that act.

type editorReply struct {
	actBase
	targetBase
	Editor      *string `json:"editor,omitempty"`
	Surface     *string `json:"surface,omitempty"`
	Written     *int    `json:"written,omitempty" desc:"characters"`
	SyncedField string  `json:"synced_field,omitempty" desc:"the field the form posts"`
	FieldChars  *int    `json:"field_chars,omitempty"`
}

type uploadReply struct {
	actBase
	targetBase
	Files []fileAttached `json:"files" desc:"name, bytes"`
	Input *elementReply  `json:"input,omitempty"`
}

// sentReply is what save_draft and publish answer.
type sentReply struct {
	actBase
	targetBase
	Published *bool           `json:"published,omitempty"`
	State     *[]publishEntry `json:"state,omitempty"`
	Errors    []string        `json:"errors,omitempty"`
	Alert     string          `json:"alert,omitempty"`
}

// fileNoted is a file upload_file handed over, as its audit row notes it.
type fileNoted struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}

func formActTools(d Deps) []*tool {
	m := d.Session
	submitParam := Param{Name: "submit", Kind: "string", Description: "A read_form submitText (button text), CSS or aria-ref."}
	sent := func(r *session.ActResult, out *sentReply) {
		s := r.Sent
		if s == nil {
			return
		}
		out.Published = ptr(s.Published)
		state := []publishEntry{}
		for _, p := range s.State {
			state = append(state, publishEntry{Name: p.Name, Value: p.Value, Label: p.Label})
		}
		out.State = &state
		out.Errors, out.Alert = s.Errors, s.Alert
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
			params: []Param{
				{Name: "content", Kind: "string", Required: true, Description: "What the editor should hold."},
				{Name: "selector", Kind: "string", Description: "Default: the first editor. " + selectorHelp},
				{Name: "html", Kind: "boolean", Description: "content is markup.", Default: false},
				submitsParam,
				timeoutParam, reasonParam, confirmParam,
			},
			output: outOf[editorReply](),
			run: func(ctx context.Context, c *call) (any, error) {
				opts, err := actOptions(c, true)
				if err != nil {
					return nil, err
				}
				opts.Intent.Submit = c.boolean("submits")
				content := c.str("content")
				c.note("content_chars", len([]rune(content)))
				res, err := m.SetEditor(ctx, c.caller, session.EditorOptions{ActOptions: opts, Content: content, HTML: c.boolean("html")})
				return actReply(res, err, func(r *session.ActResult, out *editorReply) {
					if e := r.Editor; e != nil {
						out.Editor, out.Surface, out.Written = ptr(e.Kind), ptr(e.Surface), ptr(e.Written)
						if e.SyncedField != "" {
							out.SyncedField, out.FieldChars = e.SyncedField, ptr(e.FieldChars)
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
			params: []Param{
				{Name: "selector", Kind: "string", Required: true, Description: "The file input."},
				{Name: "paths", Kind: "array", Required: true, Description: "Absolute paths."},
				timeoutParam, reasonParam, confirmParam,
			},
			output: outOf[uploadReply](),
			run: func(ctx context.Context, c *call) (any, error) {
				opts, err := actOptions(c, true)
				if err != nil {
					return nil, err
				}
				paths, _ := c.args["paths"].([]string)
				res, err := m.UploadFile(ctx, c.caller, opts, paths)
				if res != nil {
					files := []fileNoted{}
					for _, f := range res.Files {
						files = append(files, fileNoted{Path: f.Path, Bytes: f.Bytes})
					}
					c.note("files", files)
				}
				return actReply(res, err, func(r *session.ActResult, out *uploadReply) {
					out.Files = []fileAttached{}
					for _, f := range r.Files {
						out.Files = append(out.Files, fileAttached{Name: f.Name, Bytes: f.Bytes})
					}
					out.Input = element(r.Element)
				})
			},
		},
		{
			name:  "save_draft",
			title: "Save the item without publishing it",
			description: "Send the form with submit while the item stays private: its publish state must read draft, else not_private and nothing is sent. " +
				"Asks SUBMIT, never PUBLISH. The site's errors: refused.",
			params: []Param{submitParam, timeoutParam, reasonParam, confirmParam},
			output: outOf[sentReply](),
			run: func(ctx context.Context, c *call) (any, error) {
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
			params: []Param{
				{Name: "selector", Kind: "string", Required: true, Description: "The live control (read_form drafts)."},
				submitParam, timeoutParam, reasonParam, confirmParam,
			},
			output: outOf[sentReply](),
			run: func(ctx context.Context, c *call) (any, error) {
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
