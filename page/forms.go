package page

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"unicode"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// Limits of the form readers, as read_form and read_draft state them to
// agents.
const (
	// FormMaxFieldsDefault and FormMaxFieldsLimit bound read_form's
	// max_fields (clamped to 1..500).
	FormMaxFieldsDefault = 200
	FormMaxFieldsLimit   = 500
	// FormValueChars cuts a field's value in read_form.
	FormValueChars = 200
	// DraftMaxCharsDefault, DraftMaxCharsMin and DraftMaxCharsMax bound
	// read_draft's max_chars.
	DraftMaxCharsDefault = 400
	DraftMaxCharsMin     = 80
	DraftMaxCharsMax     = 4000
)

// FormOption is one <option> of a select (at most 60 are listed).
type FormOption struct {
	Value    string `json:"value"`
	Text     string `json:"text"`
	Selected bool   `json:"selected,omitempty"`
}

// FormField is one control of a form as read_form lists it. Per kind it
// carries options (select), accept and multiple (file), checked (checkbox,
// radio) or value (the rest, cut); a password carries only filled.
type FormField struct {
	Tag         string       `json:"tag"`
	Type        string       `json:"type"`
	Name        string       `json:"name"`
	ID          string       `json:"id"`
	Label       string       `json:"label"`
	Required    bool         `json:"required"`
	Disabled    bool         `json:"disabled"`
	Usable      bool         `json:"usable"`
	Options     []FormOption `json:"options,omitempty"`
	OptionCount int          `json:"optionCount,omitempty"` // all the options, when more than 60
	Accept      *string      `json:"accept,omitempty"`
	Multiple    *bool        `json:"multiple,omitempty"`
	Checked     *bool        `json:"checked,omitempty"`
	Value       *string      `json:"value,omitempty"`
	ValueChars  int          `json:"valueChars,omitempty"` // the whole value's length, when it was cut
	Filled      *bool        `json:"filled,omitempty"`     // password: holds something (never what)
	Frame       string       `json:"frame,omitempty"`      // the iframe it is in, when not the page's own document
}

// FormButton is a button of the form.
type FormButton struct {
	Tag      string `json:"tag"`
	Type     string `json:"type"`
	Name     string `json:"name"`
	ID       string `json:"id"`
	Value    string `json:"value"`
	Text     string `json:"text"`
	Usable   bool   `json:"usable"`
	Selector string `json:"selector"`
	Frame    string `json:"frame,omitempty"`
}

// FormEditor is a rich-text editor: kind is ckeditor, ckeditor5, tinymce,
// quill, prosemirror, iframe or contenteditable; content is an excerpt of
// its text, chars the whole text's length; field and fieldChars name the
// field the form posts for it and how much that field holds now (an editor
// that shows text while this is 0 posts nothing).
type FormEditor struct {
	Kind       string `json:"kind"`
	Tag        string `json:"tag"`
	ID         string `json:"id"`
	Selector   string `json:"selector"`
	Usable     bool   `json:"usable"`
	Chars      int    `json:"chars"`
	Content    string `json:"content"`
	Field      string `json:"field,omitempty"`
	FieldChars *int   `json:"fieldChars,omitempty"`
	Unreadable bool   `json:"unreadable,omitempty"` // a cross-origin editor frame
	Frame      string `json:"frame,omitempty"`
}

// PublishControl is a radio or checkbox whose label, name or id says
// draft, publish, live, unpublish, private or hidden.
type PublishControl struct {
	Name     string `json:"name"`
	ID       string `json:"id"`
	Value    string `json:"value"`
	Checked  bool   `json:"checked"`
	Label    string `json:"label"`
	Selector string `json:"selector"`
	Frame    string `json:"frame,omitempty"`
}

// FormDoc is what jsReadForm answers for one document.
type FormDoc struct {
	Found       bool             `json:"found"`
	Scope       string           `json:"scope"`
	Fields      []FormField      `json:"fields"`
	Buttons     []FormButton     `json:"buttons"`
	Editors     []FormEditor     `json:"editors"`
	Drafts      []PublishControl `json:"drafts"`
	HiddenCount int              `json:"hiddenCount"`
	TotalFields int              `json:"totalFields"`
}

// ReadFormDoc reads one frame's document for read_form. root is a CSS
// selector (empty: the first form); whole reads the whole document.
// Found is false when root matches nothing in this document. A root the
// browser cannot parse is a ScriptError holding "lyrad:badselector".
func ReadFormDoc(ctx context.Context, w *Worlds, s *cdpconn.Session, frame cdp.FrameID, root string, whole bool, maxFields int) (*FormDoc, error) {
	var d FormDoc
	if err := w.CallFunction(ctx, s, frame, jsReadForm, &d, root, whole, maxFields, FormValueChars); err != nil {
		return nil, err
	}
	return &d, nil
}

// DraftField is a field with what it is about to send.
type DraftField struct {
	Name       string  `json:"name"`
	Label      string  `json:"label"`
	Type       string  `json:"type"`
	Value      *string `json:"value,omitempty"`
	ValueChars int     `json:"valueChars,omitempty"`
	Filled     *bool   `json:"filled,omitempty"` // a password: never its value
	Usable     bool    `json:"usable"`
	Frame      string  `json:"frame,omitempty"`
}

// Attachment is a file input with the names of the files chosen in it.
type Attachment struct {
	Name     string   `json:"name"`
	ID       string   `json:"id"`
	Accept   string   `json:"accept"`
	Multiple bool     `json:"multiple"`
	Files    []string `json:"files"`
	Usable   bool     `json:"usable"`
}

// PublishState is one checked publish control.
type PublishState struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Label string `json:"label"`
	ID    string `json:"id,omitempty"`
}

// SubmitButton is a control that sends the form.
type SubmitButton struct {
	Text     string `json:"text"`
	Name     string `json:"name"`
	Selector string `json:"selector"`
	Usable   bool   `json:"usable"`
}

// DraftDoc is what jsReadDraft answers for one document.
type DraftDoc struct {
	Scope       string         `json:"scope"`
	Fields      []DraftField   `json:"fields"`
	Editors     []FormEditor   `json:"editors"`
	Attachments []Attachment   `json:"attachments"`
	State       []PublishState `json:"state"`
	Submits     []SubmitButton `json:"submits"`
	HiddenCount int            `json:"hiddenCount"`
	TotalFields int            `json:"totalFields"`
}

// ReadDraftDoc reads one frame's document for read_draft, each value cut
// to maxChars.
func ReadDraftDoc(ctx context.Context, w *Worlds, s *cdpconn.Session, frame cdp.FrameID, maxChars int) (*DraftDoc, error) {
	var d DraftDoc
	if err := w.CallFunction(ctx, s, frame, jsReadDraft, &d, maxChars); err != nil {
		return nil, err
	}
	return &d, nil
}

// FrameScope says where a frame stands for a form read: Inside the read's
// root; EditorRead when it is an editor iframe its parent already read.
type FrameScope struct {
	Inside     bool   `json:"inside"`
	EditorRead bool   `json:"editorRead"`
	Owner      string `json:"owner"`
}

// FrameInScope asks the parent's world about a frame's iframe element
// (owner, in parentFrame, reached through s).
func FrameInScope(ctx context.Context, w *Worlds, s *cdpconn.Session, parentFrame cdp.FrameID, owner cdp.BackendNodeID, root string, whole bool) (*FrameScope, error) {
	var fs FrameScope
	if err := w.CallOnNode(ctx, s, parentFrame, owner, jsFrameScope, &fs, root, whole); err != nil {
		return nil, err
	}
	return &fs, nil
}

// FindEditor finds the first editor of a frame's document when set_editor
// is given no selector: an editor iframe (CKEditor, TinyMCE, any iframe
// whose document is editable) first, else the first editing host
// (contenteditable, Quill, ProseMirror), open shadow roots included. It
// answers the element's backendNodeId, 0 when the page has no editor; pass
// it to WriteEditor through NewNode.
func FindEditor(ctx context.Context, conn *cdpconn.Conn, w *Worlds, f FrameRef) (cdp.BackendNodeID, error) {
	return FindNode(ctx, conn, w, f.Session, f.Frame, jsFindEditor)
}

// EditorWrite is what WriteEditor did, with set_editor's wire names: the
// surface written (an iframe's body or the editing host), the characters
// written, and, when the editor posts through a hidden field (CKEditor 4
// and 5, TinyMCE), that field (synced_editor is its id, CKEditor's
// instance name) and how many characters it now holds. NotEditor: the element is no editor;
// Unreadable: a cross-origin editor frame this world cannot write.
type EditorWrite struct {
	Kind         string `json:"kind"`
	Surface      string `json:"surface"`
	Written      int    `json:"written"`
	SurfaceChars int    `json:"surface_chars"`
	SyncedEditor string `json:"synced_editor,omitempty"`
	SyncedField  string `json:"synced_field,omitempty"`
	FieldChars   int    `json:"field_chars,omitempty"`
	NotEditor    bool   `json:"not_editor,omitempty"`
	Unreadable   bool   `json:"unreadable,omitempty"`
}

// WriteEditor writes content into the editor n names (an editor iframe, an
// editing host, or an element inside either): as typed text, or with html
// as markup. It fires input and change on the surface, then copies the
// surface's HTML into the field the form posts, as CKEditor's
// updateElement() does (window.CKEDITOR is the page's and out of this
// world's reach), firing input and change there too.
func WriteEditor(ctx context.Context, conn *cdpconn.Conn, w *Worlds, n *Node, content string, html bool) (*EditorWrite, error) {
	var r EditorWrite
	if err := callNode(ctx, conn, w, n, jsWriteEditor, &r, content, html); err != nil {
		return nil, err
	}
	return &r, nil
}

// ReadPublishState lists the checked publish controls of a frame's first
// form (else of its whole document). save_draft sends only when
// StateIsPrivate holds for it.
func ReadPublishState(ctx context.Context, w *Worlds, s *cdpconn.Session, frame cdp.FrameID) ([]PublishState, error) {
	var st []PublishState
	if err := w.CallFunction(ctx, s, frame, jsPublishState, &st); err != nil {
		return nil, err
	}
	return st, nil
}

// The words that say a checked publish control keeps the item private or
// makes it live.
var (
	privateWords  = []string{"draft", "unpublish", "private", "hidden", "off"}
	liveWords     = []string{"publish", "live", "public", "visible", "online"}
	privateValues = []string{"1", "true", "yes", "draft", "private", "hidden", "unpublish"}
)

// readsPrivate reports whether a checked publish control positively says
// the item is not public. The label decides first,
// because a radio group labels each option ("Draft" / "Publish") while its
// name (is_draft) is on both members; the name and value decide for a
// control with no label. A control nobody can classify is not private.
func readsPrivate(p PublishState) bool {
	label := strings.ToLower(strings.TrimSpace(p.Label))
	if label != "" {
		// Whole words, or words that begin with one ("Unpublished"): "off"
		// is not in "Office", and "publish" is not in "Unpublish". A label
		// that says both is not trusted to mean private.
		private, live := labelSays(label, privateWords), labelSays(label, liveWords)
		switch {
		case private && !live:
			return true
		case live:
			return false
		}
	}
	name := strings.ToLower(strings.TrimSpace(p.Name))
	value := strings.ToLower(strings.TrimSpace(p.Value))
	switch {
	case containsAny(name, []string{"draft", "private", "hidden"}):
		return oneOf(value, "1", "true", "yes", "draft")
	case containsAny(name, []string{"live", "publish", "visible"}):
		return oneOf(value, "0", "false", "no", "draft")
	}
	return oneOf(value, privateValues...)
}

// StateIsPrivate: there is a publish state and every checked member of it
// reads private. No state at all is not private: save_draft cannot tell
// that sending keeps the item hidden.
func StateIsPrivate(state []PublishState) bool {
	if len(state) == 0 {
		return false
	}
	for _, p := range state {
		if !readsPrivate(p) {
			return false
		}
	}
	return true
}

// labelSays: one of label's words is, or begins with, one of words ("off"
// only as a whole word).
func labelSays(label string, words []string) bool {
	for _, w := range strings.FieldsFunc(label, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		for _, k := range words {
			if w == k || (len(k) > 3 && strings.HasPrefix(w, k)) {
				return true
			}
		}
	}
	return false
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func oneOf(s string, set ...string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// AfterSend is what a page says once a form was sent: whether a form is
// still there, the visible alert and error texts (at most 5, cut), the
// first of them as alert, and refused when there is any.
type AfterSend struct {
	FormPresent bool     `json:"form_present"`
	Errors      []string `json:"errors"`
	Alert       string   `json:"alert"`
	Refused     bool     `json:"refused"`
}

// ReadAfterSend reads a frame's page back after save_draft or publish
// sent its form (the caller lets it settle 2.5 s first). A dialog the send
// raised is the caller's to add: it is a refusal too.
func ReadAfterSend(ctx context.Context, w *Worlds, s *cdpconn.Session, frame cdp.FrameID) (*AfterSend, error) {
	var a AfterSend
	if err := w.CallFunction(ctx, s, frame, jsAfterSend, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// FormSends is what the form a control sends would send (jsFormSendsOf):
// where it goes, how, what it sends under each of its publish controls'
// names, and its checked publish controls.
type FormSends struct {
	Action string              `json:"action"`
	Method string              `json:"method"`
	Fields map[string][]string `json:"fields"`
	State  []PublishState      `json:"state"`
}

// FormSendsOf reads FormSends for the form the control n sends, in one
// synchronous read of the page.
func FormSendsOf(ctx context.Context, conn *cdpconn.Conn, w *Worlds, n *Node) (*FormSends, error) {
	var fs FormSends
	if err := callNode(ctx, conn, w, n, jsFormSendsOf, &fs); err != nil {
		return nil, err
	}
	return &fs, nil
}

// ArmSendCheck arms the check of what the forms of n's frame send against
// fields, the publish state approved (jsArmSendCheck).
// token names this arming for DisarmSendCheck.
func ArmSendCheck(ctx context.Context, conn *cdpconn.Conn, w *Worlds, n *Node, fields map[string][]string, token string) error {
	var ok bool
	return callNode(ctx, conn, w, n, jsArmSendCheck, &ok, fields, token)
}

// sendCheckBinding is the binding through which the armed check tells
// lyrad, from its world, that it passed a submission (its payload is the
// token it was armed with): Runtime.bindingCalled on the frame's session.
const sendCheckBinding = "lyradSendChecked"

// SendCheckTokens exposes the check's binding to lyrad's world in the
// target session sid reaches (no page script can call it), and answers
// the token of each submission the check armed there passes, until stop
// is called or the target goes.
func SendCheckTokens(ctx context.Context, conn *cdpconn.Conn, sid target.SessionID) (tokens <-chan string, stop func(), err error) {
	s := conn.Session(sid)
	events, unsubscribe := s.Subscribe(runtime.BindingCalled.Method)
	if _, err := cdp.Call(ctx, s, runtime.AddBinding, runtime.AddBindingParams{Name: sendCheckBinding, ExecutionContextName: WorldName}); err != nil {
		unsubscribe()
		return nil, nil, err
	}
	out := make(chan string, 4)
	done := make(chan struct{})
	go func() {
		defer close(out)
		for ev := range events {
			var e runtime.EventBindingCalled
			if jsonv2.Unmarshal(ev, &e) != nil || e.Name != sendCheckBinding {
				continue
			}
			select {
			case out <- e.Payload:
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return out, func() { once.Do(func() { close(done); unsubscribe() }) }, nil
}

// DisarmSendCheck takes the check armed with token away, unless it was
// armed again since.
func DisarmSendCheck(ctx context.Context, conn *cdpconn.Conn, w *Worlds, n *Node, token string) error {
	var ok bool
	return callNode(ctx, conn, w, n, jsDisarmSendCheck, &ok, token)
}

// SendStopped says what the armed check stopped in n's frame ("" for
// nothing): the publish field that did not hold what was approved.
func SendStopped(ctx context.Context, conn *cdpconn.Conn, w *Worlds, n *Node) (string, error) {
	var s string
	err := callNode(ctx, conn, w, n, jsSendStopped, &s)
	return s, err
}

// SubmitCandidate is a control that sends a form, as a submit-by-text
// error lists it.
type SubmitCandidate struct {
	Text     string `json:"text"`
	Selector string `json:"selector"`
	Usable   bool   `json:"usable"`
	Form     string `json:"form"`
}

// SubmitMatch is what LocateSubmit found for a submit control's text:
// how many controls say it and how (exact, or case: the same text in
// another case), whether they are different controls (Ambiguous), and
// the candidates (the ambiguous matches, else every submit control).
type SubmitMatch struct {
	Matches    int               `json:"matches"`
	How        string            `json:"how"`
	Ambiguous  bool              `json:"ambiguous"`
	Candidates []SubmitCandidate `json:"candidates"`
}

// LocateSubmit finds the submit control of the tab whose text is text (as
// read_form's submitText gives it), in the main frame first and, when
// nothing there says it, in the tab's iframes; the node is held in group.
// Controls in two frames that say it are ambiguous too.
func LocateSubmit(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, text, group string) (*Node, *SubmitMatch, error) {
	n, m, err := locateSubmitIn(ctx, conn, w, FrameRef{Session: tab.Session, Frame: tab.Main()}, text, group)
	if err != nil || m.Matches > 0 {
		return n, m, err
	}
	frames, err := ChildFrames(ctx, conn, tab)
	if err != nil {
		return nil, m, err
	}
	all := m
	var found *Node
	var foundIn *SubmitMatch
	for _, f := range frames {
		fn, fm, err := locateSubmitIn(ctx, conn, w, f, text, group)
		if err != nil {
			continue
		}
		if fm.Matches == 0 {
			all.Candidates = append(all.Candidates, fm.Candidates...)
			continue
		}
		if foundIn != nil || fm.Ambiguous {
			amb := &SubmitMatch{Matches: fm.Matches, How: fm.How, Ambiguous: true, Candidates: fm.Candidates}
			if foundIn != nil {
				amb.Matches += foundIn.Matches
				amb.Candidates = append(append([]SubmitCandidate{}, foundIn.Candidates...), fm.Candidates...)
			}
			return nil, amb, nil
		}
		found, foundIn = fn, fm
	}
	if foundIn != nil {
		return found, foundIn, nil
	}
	if len(all.Candidates) > 12 {
		all.Candidates = all.Candidates[:12]
	}
	return nil, all, nil
}

// locateSubmitIn runs jsLocateSubmit in one frame. On a match that is
// not ambiguous, the candidates are the matching control alone.
func locateSubmitIn(ctx context.Context, conn *cdpconn.Conn, w *Worlds, f FrameRef, text, group string) (*Node, *SubmitMatch, error) {
	s := conn.Session(f.Session)
	for attempt := 0; ; attempt++ {
		id, err := w.Get(ctx, s, f.Frame, attempt > 0)
		if err != nil {
			return nil, nil, err
		}
		args, _ := scriptArgs([]any{text})
		t := true
		res, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: jsLocateSubmit, ExecutionContextID: id, Arguments: args, ObjectGroup: group, Silent: &t,
		})
		if cdpconn.IsContextGone(err) && attempt == 0 {
			w.Forget(f.Frame)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if err := DecodeResult(nil, res.ExceptionDetails, nil); err != nil {
			return nil, nil, err
		}
		if res.Result == nil || res.Result.ObjectID == "" {
			return nil, nil, errors.New("locate submit: no result")
		}
		own := true
		props, err := cdp.Call(ctx, s, runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: res.Result.ObjectID, OwnProperties: &own})
		if err != nil {
			return nil, nil, err
		}
		var m SubmitMatch
		var el runtime.RemoteObjectID
		for _, p := range props.Result {
			if p.Value == nil {
				continue
			}
			switch p.Name {
			case "info":
				var raw string
				if jsonv2.Unmarshal(p.Value.Value, &raw) == nil {
					_ = json.Unmarshal([]byte(raw), &m)
				}
			case "el":
				el = p.Value.ObjectID
			}
		}
		if el == "" {
			return nil, &m, nil
		}
		d, err := cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: el})
		if err != nil || d.Node == nil {
			return nil, nil, &NodeGoneError{Err: errors.New("the element went away as it was found")}
		}
		frame := f.Frame
		if d.Node.FrameID != "" {
			frame = d.Node.FrameID
		}
		return &Node{Session: f.Session, Frame: frame, backend: d.Node.BackendNodeID, object: el, group: group}, &m, nil
	}
}

// Submitter is what a control that sends a form says: its text, name and
// value.
type Submitter struct {
	Text  string `json:"text"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// SubmitterOf reads what the control n says (jsSubmitterOf).
func SubmitterOf(ctx context.Context, conn *cdpconn.Conn, w *Worlds, n *Node) (*Submitter, error) {
	var s Submitter
	if err := callNode(ctx, conn, w, n, jsSubmitterOf, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Publishes: a control whose text, name or value says it makes the item
// public (WordPress's <input type=submit name=publish value=Publish>, a
// "Go live" button), and nothing in it says draft or private. Sending a
// form with such a control is publishing, whatever its radios say.
func (s Submitter) Publishes() bool {
	words := strings.ToLower(s.Text + " " + s.Name + " " + s.Value)
	return labelSays(words, liveWords) && !labelSays(words, privateWords)
}

// Validity is whether the browser's own validation stops a form's send
// (jsValidityOf): Blocked, and the invalid fields with their messages.
type Validity struct {
	Blocked bool     `json:"blocked"`
	Fields  []string `json:"fields"`
}

// FormValidity reads Validity for the form the control n sends.
func FormValidity(ctx context.Context, conn *cdpconn.Conn, w *Worlds, n *Node) (*Validity, error) {
	var v Validity
	if err := callNode(ctx, conn, w, n, jsValidityOf, &v); err != nil {
		return nil, err
	}
	return &v, nil
}
