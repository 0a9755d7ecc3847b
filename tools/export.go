package tools

import (
	"context"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/session"
)

// What a second surface (tools/playwright) shares with this one: who a
// session is, the proof its front door gave, and how its user can be asked.
// It has no confirm argument: a client that cannot be asked is refused.

// CallerOf is the session.Caller for session id on ss, with the proof the
// call's front door carries.
func CallerOf(ctx context.Context, ss *mcp.ServerSession, id string, req *mcp.CallToolRequest) session.Caller {
	return withProof(ctx, callerOf(ss, id), req)
}

// ConsentIOOf says how this call can reach the user, as on lyrad's own
// surface, without the confirm=true fallback.
func ConsentIOOf(req *mcp.CallToolRequest) session.ConsentIO {
	return consentIO(req, nil)
}

// ConsentSchema is the form a consent question asks the user to fill.
func ConsentSchema() map[string]any { return consentSchema() }

// ErrorFacts are the facts a session refusal carries, under the keys lyrad's
// own surface answers them with (status, error and hint left out).
func ErrorFacts(se *session.Error) map[string]any {
	out := object(errorOf(se))
	delete(out, "status")
	delete(out, "error")
	delete(out, "hint")
	return out
}

// NewCallerID is a session id unique across runs, prefixed.
func NewCallerID(prefix string, n int64, ss *mcp.ServerSession) string {
	id := prefix + "-" + strconv.FormatInt(n, 10)
	if sid := ss.ID(); sid != "" {
		return id + "-" + sid[:min(8, len(sid))]
	}
	return id + "-" + randomTag()
}
