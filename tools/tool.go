// Package tools is lyrad's tool surface: names, schemas, argument checks and
// envelopes. A tool asks the session to act; it never speaks CDP.
//
// Every tool answers a small JSON object with a status and, when something
// is wrong, a hint with the next move, as structured content and as text.
// Arguments are checked here, before anything is asked or done: an unknown
// argument, a wrong type or a value outside its set is an error envelope that
// names the argument and the fix.
package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/session"
)

// Deps is what the tools need.
type Deps struct {
	Session Session
	Logger  *zap.Logger
}

// Session is what the tools ask of package session (a *session.Manager;
// a fake in the handlers' tests). It answers in types; the tools build the
// wire envelopes.
type Session interface {
	Open(ctx context.Context, c session.Caller) (*session.OpenInfo, error)
	CloseBrowser(ctx context.Context, c session.Caller) (wasOpen bool, err error)
	URL(ctx context.Context, c session.Caller) (*session.PageInfo, error)
	CurrentURL() string
	Navigate(ctx context.Context, c session.Caller, rawURL, waitUntil string, in session.Intent) (*session.ActResult, error)
	GoBack(ctx context.Context, c session.Caller, waitUntil string, in session.Intent) (*session.ActResult, error)
	Reload(ctx context.Context, c session.Caller, waitUntil string, in session.Intent) (*session.ActResult, error)
	Click(ctx context.Context, c session.Caller, opts session.ActOptions) (*session.ActResult, error)
	Hover(ctx context.Context, c session.Caller, opts session.ActOptions) (*session.ActResult, error)
	TypeText(ctx context.Context, c session.Caller, opts session.ActOptions, text string, submit bool) (*session.ActResult, error)
	PressKey(ctx context.Context, c session.Caller, keys []string, seq bool, opts session.ActOptions) (*session.ActResult, error)
	Scroll(ctx context.Context, c session.Caller, so session.ScrollOptions) (*session.ActResult, error)
	SelectOption(ctx context.Context, c session.Caller, opts session.ActOptions, by session.SelectBy) (*session.ActResult, error)
	Tabs(ctx context.Context, c session.Caller) (*session.TabList, error)
	SwitchTab(ctx context.Context, c session.Caller, index int, in session.Intent) (*session.ActResult, error)
	CloseTab(ctx context.Context, c session.Caller, index int, in session.Intent) (*session.ActResult, error)
	NewTab(ctx context.Context, c session.Caller, rawURL string, in session.Intent) (*session.ActResult, error)
	Evaluate(ctx context.Context, c session.Caller, opts session.ActOptions, fn string) (*session.ActResult, string, error)
	ArmDialog(ctx context.Context, c session.Caller, a session.DialogAnswer, in session.Intent) (time.Time, error)
	ReadPage(ctx context.Context, c session.Caller, o session.ReadOptions) (*session.ReadResult, error)
	ReadForm(ctx context.Context, c session.Caller, o session.FormOptions) (*session.FormResult, error)
	ReadDraft(ctx context.Context, c session.Caller, maxChars int) (*session.DraftResult, error)
	ListDownloads(c session.Caller) (*session.DownloadList, error)
	RequestTakeover(ctx context.Context, c session.Caller, reason string) (*session.TakeoverInfo, error)
	ResumeAfterTakeover(ctx context.Context, c session.Caller, reason string) (*session.TakeoverInfo, error)
	AskUser(ctx context.Context, c session.Caller, instruction, selector string) (*session.TakeoverInfo, error)
	Highlight(ctx context.Context, c session.Caller, selector string) (*session.TakeoverInfo, error)
	SetEditor(ctx context.Context, c session.Caller, o session.EditorOptions) (*session.ActResult, error)
	UploadFile(ctx context.Context, c session.Caller, opts session.ActOptions, paths []string) (*session.ActResult, error)
	SaveDraft(ctx context.Context, c session.Caller, submit string, opts session.ActOptions) (*session.ActResult, error)
	Publish(ctx context.Context, c session.Caller, selector, submit string, opts session.ActOptions) (*session.ActResult, error)
	WaitFor(ctx context.Context, c session.Caller, o session.WaitOptions) (time.Duration, error)
	Screenshot(ctx context.Context, c session.Caller, fullPage bool) (*session.Capture, bool, error)
	ReadImage(ctx context.Context, c session.Caller, selector string) (*session.Capture, error)
	Audit() *audit.Log
	SessionEnded(id string)
	OnHandedOff(fn func(id, message string))
}

// tool is one entry of the surface.
type tool struct {
	name        string
	title       string
	description string
	params      []Param
	readOnly    bool
	destructive bool
	idempotent  bool
	// output is the properties of the tool's output schema, generated
	// from its reply type (outOf).
	output map[string]any
	// run answers the tool's reply (a reply type) or an error.
	run func(ctx context.Context, c *call) (any, error)
}

// call is one invocation: the checked arguments and who made it.
type call struct {
	caller session.Caller
	ss     *mcp.ServerSession // nil in unit tests
	args   map[string]any
	// content is added to the reply after the envelope's text block (an
	// image, say); audit is added to the call's audit row.
	content []mcp.Content
	audit   map[string]any
}

// attach adds a content block to the reply, after the envelope.
func (c *call) attach(b mcp.Content) { c.content = append(c.content, b) }

// note adds a field to the call's audit row.
func (c *call) note(k string, v any) {
	if c.audit == nil {
		c.audit = map[string]any{}
	}
	c.audit[k] = v
}

func (c *call) str(name string) string {
	s, _ := c.args[name].(string)
	return s
}

func (c *call) boolean(name string) bool {
	b, _ := c.args[name].(bool)
	return b
}

// Register adds every tool to the server, and the guide they point to.
func Register(s *mcp.Server, d Deps) *Sessions {
	if d.Logger == nil {
		d.Logger = zap.NewNop()
	}
	r := &registry{d: d, ending: map[*mcp.ServerSession]chan struct{}{}}
	if d.Session != nil { // nil when only the list is wanted
		d.Session.OnHandedOff(r.handedOff)
	}
	for _, t := range all(d) {
		s.AddTool(t.mcpTool(), r.handler(t))
	}
	registerGuide(s)
	return &Sessions{r}
}

// Sessions is what Register knows of the MCP sessions that called a tool.
type Sessions struct{ r *registry }

// Ended waits, once ss is closed, until its end has been told to the
// session manager (its turn held or handed on, its end row written): a
// process that exits when its one session ends (in-process stdio) waits
// for this before it closes the trail.
func (s *Sessions) Ended(ss *mcp.ServerSession) {
	if s == nil {
		return
	}
	s.r.mu.Lock()
	ch := s.r.ending[ss]
	s.r.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

func all(d Deps) []*tool {
	var out []*tool
	out = append(out, browserTools(d)...)
	out = append(out, navigationTools(d)...)
	out = append(out, readingTools(d)...)
	out = append(out, waitingTools(d)...)
	out = append(out, captureTools(d)...)
	out = append(out, interactionTools(d)...)
	out = append(out, tabTools(d)...)
	out = append(out, historyTools(d)...)
	out = append(out, formTools(d)...)
	out = append(out, formActTools(d)...)
	out = append(out, collaborationTools(d)...)
	out = append(out, downloadTools(d)...)
	return out
}

func (t *tool) mcpTool() *mcp.Tool {
	props, required := ParamSchemas(t.params, nil)
	// Unknown arguments are refused by checkArgs, naming the argument and
	// the ones the tool takes; the schema does not say it again.
	in := map[string]any{"type": "object"}
	if len(props) > 0 {
		in["properties"] = props
	}
	if len(required) > 0 {
		in["required"] = required
	}
	outProps := wireOut(t.output)
	// destructiveHint is true unless said otherwise: only a tool that is
	// not destructive says so.
	var destructive *bool
	if !t.destructive {
		destructive = new(bool)
	}
	// openWorldHint is true unless said otherwise: only a read says so.
	var openWorld *bool
	if t.readOnly {
		openWorld = new(bool)
	}
	return &mcp.Tool{
		Name:        t.name,
		Title:       t.title,
		Description: t.description,
		InputSchema: in,
		OutputSchema: map[string]any{
			"type": "object", "properties": outProps,
		},
		// The title is the tool's own (clients read Tool.title first); said
		// again here it would only cost context.
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    t.readOnly,
			DestructiveHint: destructive,
			IdempotentHint:  t.idempotent,
			OpenWorldHint:   openWorld,
		},
	}
}

// wireOut is an output schema's properties as tools/list carries them:
// each field by name, with its few words where its name cannot say it, and
// without its type. Every reply is a JSON object the agent reads as it
// comes, and the types (kept in the generated schemas, which the schema
// test checks replies against) would cost a fifth of tools/list. What every
// reply has (status, hint, error) and what every acting call answers
// (actShared) are said once, in the server's instructions: an acting
// call's schema lists its own fields.
func wireOut(props map[string]any) map[string]any {
	// Only acting calls answer what they set off.
	_, nav := props["navigated"]
	_, tab := props["new_tab"]
	acting := nav && tab
	out := make(map[string]any, len(props))
	for k, v := range props {
		if contains(envelopeKeys, k) || (acting && contains(actShared, k)) {
			continue
		}
		w := map[string]any{}
		if m, ok := v.(map[string]any); ok && m["description"] != nil {
			w["description"] = m["description"]
		}
		out[k] = w
	}
	return out
}

// registry maps MCP sessions to caller ids and runs tools.
type registry struct {
	d      Deps
	mu     sync.Mutex
	ids    map[*mcp.ServerSession]string
	ending map[*mcp.ServerSession]chan struct{} // closed once SessionEnded returned
	count  atomic.Int64
}

// handedOff tells session id's client, if it is still connected, that its
// turn ended (a log notification: the one message a server may send a
// client outside a call; the client sees it if it set a log level).
func (r *registry) handedOff(id, message string) {
	r.mu.Lock()
	var ss *mcp.ServerSession
	for s, sid := range r.ids {
		if sid == id {
			ss = s
		}
	}
	r.mu.Unlock()
	if ss != nil {
		TellHandedOff(ss, message)
	}
}

// TellHandedOff sends ss's client a log notification that its turn ended:
// the one message a server may send a client outside a call.
func TellHandedOff(ss *mcp.ServerSession, message string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	//lint:ignore SA1019 logging is deprecated from protocol 2026-07-28 but still delivered
	_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Logger: "lyrad", Data: message})
}

// randomTag is 8 random hex digits.
func randomTag() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (r *registry) caller(ss *mcp.ServerSession) session.Caller {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ids == nil {
		r.ids = map[*mcp.ServerSession]string{}
	}
	if id, ok := r.ids[ss]; ok {
		return callerOf(ss, id)
	}
	// Unique across runs, so that the audit trail of one data directory
	// never gives two sessions one id: the HTTP session's own id, else
	// (stdio, the socket) 8 random hex digits.
	id := fmt.Sprintf("mcp-%d", r.count.Add(1))
	if sid := ss.ID(); sid != "" {
		id += "-" + sid[:min(8, len(sid))]
	} else {
		id += "-" + randomTag()
	}
	r.ids[ss] = id
	done := make(chan struct{})
	if r.ending == nil {
		r.ending = map[*mcp.ServerSession]chan struct{}{}
	}
	r.ending[ss] = done
	go func() {
		_ = ss.Wait()
		r.mu.Lock()
		delete(r.ids, ss)
		r.mu.Unlock()
		r.d.Session.SessionEnded(id)
		r.mu.Lock()
		delete(r.ending, ss)
		r.mu.Unlock()
		close(done)
	}()
	return callerOf(ss, id)
}

func (r *registry) handler(t *tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		var c session.Caller
		if req.Session != nil {
			c = withProof(ctx, r.caller(req.Session), req)
		}
		urlBefore := r.d.Session.CurrentURL()
		raw := req.Params.Arguments
		args, err := checkArgs(t, raw)
		var out any
		c.Tool = t.name
		if err == nil {
			io := consentIO(req, args)
			c.Consent = &io
		}
		cl := &call{caller: c, args: args, ss: req.Session}
		if err == nil {
			stop := progress(ctx, req, t)
			out, err = t.run(ctx, cl)
			stop()
		}
		var need *session.ConsentNeeded
		if errors.As(err, &need) {
			// Nothing was done: ask the user through the client, which
			// repeats the call with the answer (protocol 2026-07-28).
			r.auditCall(t, c, args, raw, start, urlBefore, map[string]any{"status": "input_required"}, nil)
			asks := mcp.InputRequestMap{}
			for _, q := range need.Questions() {
				asks[q.ID] = &mcp.ElicitParams{Mode: "form", Message: q.Message, RequestedSchema: consentSchema()}
			}
			return &mcp.CallToolResult{InputRequests: asks}, nil
		}
		env := envelope(out, err)
		if err != nil {
			var se *session.Error
			if !errors.As(err, &se) {
				if _, ok := err.(*ArgError); !ok {
					r.d.Logger.Warn("tool failed", zap.String("tool", t.name), zap.Error(err))
				}
			}
		}
		r.auditCall(t, c, args, raw, start, urlBefore, env, cl.audit)
		res := result(env)
		if err == nil {
			res.Content = append(res.Content, cl.content...)
		}
		return res, nil
	}
}

// auditCall writes the tool call's row: who, what (secrets redacted by the
// audit package), how it ended, how long it took, where the tab stood.
func (r *registry) auditCall(t *tool, c session.Caller, args map[string]any, raw json.RawMessage, start time.Time, urlBefore string, env map[string]any, extra map[string]any) {
	if args == nil {
		args = rawArgs(raw)
	}
	row := audit.Row{
		Kind: "tool", Session: c.ID, Tool: t.name, Args: args,
		Status: env["status"].(string), DurationMS: audit.Since(start),
		URLBefore: urlBefore, URLAfter: r.d.Session.CurrentURL(),
	}
	if e, ok := env["error"].(string); ok {
		row.Extra = audit.Fields{"error": e}
	}
	if id, ok := env["approval_id"].(string); ok {
		if row.Extra == nil {
			row.Extra = audit.Fields{}
		}
		row.Extra["approval_id"] = id // the rows of lyrad approve's answer name it too
	}
	for k, v := range extra {
		if row.Extra == nil {
			row.Extra = audit.Fields{}
		}
		row.Extra[k] = v
	}
	if werr := r.d.Session.Audit().Write(row); werr != nil {
		r.d.Logger.Error("audit write failed", zap.Error(werr))
	}
}

func result(env map[string]any) *mcp.CallToolResult {
	b, _ := json.Marshal(env)
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: env,
		// An envelope is an answer, not a protocol failure; IsError marks
		// the ones the agent must act on.
		IsError: env["status"] == session.StatusError,
	}
}

// checkArgs decodes the arguments and checks them against the tool's params.
func checkArgs(t *tool, raw json.RawMessage) (map[string]any, error) {
	return CheckArgs(t.name, t.params, raw, lyraArgs)
}

func rawArgs(raw json.RawMessage) map[string]any {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// progressEvery is how often a call that waits tells a client that asked
// (a progressToken) that it is still under way.
const progressEvery = time.Second

// progress sends MCP progress notifications while a call that can wait
// (a load, a consent question, a download, wait_for) runs, when the client
// gave a progressToken; the returned func stops them.
func progress(ctx context.Context, req *mcp.CallToolRequest, t *tool) (stop func()) {
	if req.Session == nil || req.Params == nil || (t.readOnly && t.name != "wait_for") {
		return func() {}
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		start := time.Now()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case now := <-tick.C:
				s := now.Sub(start).Seconds()
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: s,
					Message: fmt.Sprintf("%s still under way (%.0f s): waiting for the page, the user or a download", t.name, s)})
			}
		}
	}()
	return func() { close(done); <-finished }
}
