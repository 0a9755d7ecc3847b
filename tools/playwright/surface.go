// Package playwright is lyrad's second tool surface: Playwright MCP's tools
// (@playwright/mcp 0.0.83: their names, parameters, defaults and answer
// sections) over the same session core as lyrad's own surface, so an agent
// written for Playwright MCP switches with one line of its client's
// configuration and is guarded like any other.
//
// Every tool maps onto a call of tools.Session (a *session.Manager): the
// guard, grants, consent, takeover, downloads and the audit apply as they
// do on lyrad's surface, and audit rows name this surface's tools. There is
// no second path to the browser. What lyrad will not do (run Playwright
// code, read the console it never enables, emulate, resize the user's
// window) is answered with why, never done some other way.
//
// Answers are Markdown sections as Playwright MCP gives them: ### Result,
// ### Page, ### Open tabs, ### Modal state, ### Events, ### Snapshot (the
// page's action map in aria-snapshot YAML, nested in the containers that
// hold its items, the focus [active], with lyrad's refs, which a later
// call passes back as target) and ### Error.
package playwright

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/session"
	"github.com/lyrad/lyrad/tools"
)

// Options are the surface's settings.
type Options struct {
	// Caps are Playwright MCP's --caps; "lyra" adds lyrad's own tools
	// under the same naming (takeover, forms, drafts, downloads).
	Caps []string
	// OutputDir is where browser_snapshot's and browser_take_screenshot's
	// filename land (their base name only); "" puts them with lyrad's
	// captures.
	OutputDir string
	// Evaluate lets browser_evaluate run the agent's function, in lyrad's
	// isolated world (LYRA_BROWSER_PLAYWRIGHT_EVALUATE); off, it is refused.
	Evaluate bool
}

func (o Options) has(c string) bool {
	for _, x := range o.Caps {
		if x == c {
			return true
		}
	}
	return false
}

// Sessions is what Register knows of the MCP sessions that called a tool.
type Sessions struct{ r *registry }

// Ended waits, once ss is closed, until its end has been told to the
// session manager (as tools.Sessions.Ended).
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

// Register adds the surface's tools to s.
func Register(s *mcp.Server, d tools.Deps, o Options) *Sessions {
	if d.Logger == nil {
		d.Logger = zap.NewNop()
	}
	r := &registry{d: d, o: o, ids: map[*mcp.ServerSession]string{}, ending: map[*mcp.ServerSession]chan struct{}{},
		chooser: map[string]string{}}
	if d.Session != nil {
		d.Session.OnHandedOff(r.handedOff)
	}
	for _, t := range surface(o) {
		s.AddTool(t.mcpTool(), r.handler(t))
	}
	return &Sessions{r}
}

// registry maps MCP sessions to caller ids and runs the tools.
type registry struct {
	d      tools.Deps
	o      Options
	mu     sync.Mutex
	ids    map[*mcp.ServerSession]string
	ending map[*mcp.ServerSession]chan struct{}
	count  atomic.Int64
	// chooser is, per caller, the file input the last click opened a file
	// chooser for: Playwright MCP's modal state that browser_file_upload
	// answers.
	chooser map[string]string
}

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
		tools.TellHandedOff(ss, message)
	}
}

// caller is the session id of ss, made on its first call; its end is
// told to the session manager once ss closes.
func (r *registry) caller(ctx context.Context, req *mcp.CallToolRequest) session.Caller {
	ss := req.Session
	r.mu.Lock()
	id, ok := r.ids[ss]
	if !ok {
		id = tools.NewCallerID("pw", r.count.Add(1), ss)
		r.ids[ss] = id
		done := make(chan struct{})
		r.ending[ss] = done
		go func() {
			_ = ss.Wait()
			r.mu.Lock()
			delete(r.ids, ss)
			delete(r.chooser, id)
			r.mu.Unlock()
			r.d.Session.SessionEnded(id)
			r.mu.Lock()
			delete(r.ending, ss)
			r.mu.Unlock()
			close(done)
		}()
	}
	r.mu.Unlock()
	return tools.CallerOf(ctx, ss, id, req)
}

func (r *registry) setChooser(id, sel string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sel == "" {
		delete(r.chooser, id)
		return
	}
	r.chooser[id] = sel
}

func (r *registry) pendingChooser(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.chooser[id]
}

func (r *registry) handler(t *tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		m := r.d.Session
		var c session.Caller
		if req.Session != nil {
			c = r.caller(ctx, req)
		}
		urlBefore := m.CurrentURL()
		var raw json.RawMessage
		if req.Params != nil {
			raw = req.Params.Arguments
		}
		args, err := checkArgs(t, raw)
		a := &answer{}
		if err == nil {
			cctx := ctx
			c.Tool = t.name
			if req.Session != nil {
				io := tools.ConsentIOOf(req)
				c.Consent = &io
			}
			cl := &call{r: r, m: m, caller: c, args: args, a: a}
			err = t.run(cctx, cl)
			// Playwright MCP launches its browser on the first call that
			// needs one: so does this surface (nothing was done).
			if status, _, _, _ := refusal(err); status == session.StatusNotOpen && t.name != "browser_close" {
				if _, oerr := m.Open(cctx, c); oerr != nil {
					err = oerr
				} else {
					*a = answer{}
					err = t.run(cctx, cl)
				}
			}
		}
		var need *session.ConsentNeeded
		if errors.As(err, &need) {
			// Nothing was done: the client asks its user and repeats the
			// call with the answer (protocol 2026-07-28).
			r.audit(t, c, args, raw, start, urlBefore, "input_required", "")
			asks := mcp.InputRequestMap{}
			for _, q := range need.Questions() {
				asks[q.ID] = &mcp.ElicitParams{Mode: "form", Message: q.Message, RequestedSchema: tools.ConsentSchema()}
			}
			return &mcp.CallToolResult{InputRequests: asks}, nil
		}
		status := session.StatusOK
		msg := ""
		if err != nil {
			status, msg, _, _ = refusal(err)
			var ae *tools.ArgError
			var se *session.Error
			if !errors.As(err, &ae) && !errors.As(err, &se) {
				r.d.Logger.Warn("tool failed", zap.String("tool", t.name), zap.Error(err))
			}
		}
		r.audit(t, c, args, raw, start, urlBefore, status, msg)
		return a.reply(err), nil
	}
}

// audit writes the call's row, named by this surface's tool.
func (r *registry) audit(t *tool, c session.Caller, args map[string]any, raw json.RawMessage, start time.Time, urlBefore, status, msg string) {
	if args == nil {
		_ = json.Unmarshal(raw, &args)
	}
	row := audit.Row{
		Kind: "tool", Session: c.ID, Tool: t.name, Args: args,
		Status: status, DurationMS: audit.Since(start),
		URLBefore: urlBefore, URLAfter: r.d.Session.CurrentURL(),
		Extra: map[string]any{"surface": "playwright"},
	}
	if msg != "" {
		row.Extra["error"] = msg
	}
	if werr := r.d.Session.Audit().Write(row); werr != nil {
		r.d.Logger.Error("audit write failed", zap.Error(werr))
	}
}
