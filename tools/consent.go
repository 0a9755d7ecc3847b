package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/session"
)

// Consent over MCP: session decides when to ask and what an answer means;
// here its yes/no question becomes an elicitation, and the client's answer
// an session.Answer.
//
// Two ways to ask. A client on protocol 2026-07-28 answers input requests
// when it repeats the call: the call returns them (session.ConsentNeeded)
// and is run again with the answers. An older client is asked now, with
// elicitation/create, and the call waits. go-sdk bridges the first way to
// older clients by itself (mcp/mrtr.go: it elicits and runs the handler
// again, once), but not as lyrad must answer: it waits for the client
// without LYRA_BROWSER_CONSENT_TIMEOUT, turns a failed elicitation into a
// protocol error instead of a denied envelope with its audit row, and
// returns a second round of questions (a handoff, then a grant) to a
// client that cannot read it. So older clients are asked here.

// protocolDeferred is the first protocol version on which a client answers
// input requests on a repeated call.
const protocolDeferred = "2026-07-28"

// consentSchema is what the user is shown: one yes/no.
func consentSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"approve": map[string]any{"type": "boolean", "title": "Allow", "description": "Allow the agent to do this once (or for the site, for navigation)."},
		},
		"required": []string{"approve"},
	}
}

// answerOf reads an elicitation's answer to consentSchema.
func answerOf(action string, content map[string]any) session.Answer {
	a := session.Answer{Action: action}
	if action != "accept" || len(content) == 0 {
		return a
	}
	v, ok := content["approve"].(bool)
	if len(content) != 1 || !ok {
		a.Unfit = true
		return a
	}
	a.Approve = &v
	return a
}

// consentIO says how this call can reach the user: an elicitation the
// server sends now (clients before protocol 2026-07-28), an input request
// the client answers on a repeated call (2026-07-28), or neither, when the
// client declared no elicitation support; then only confirm=true is left.
func consentIO(req *mcp.CallToolRequest, args map[string]any) session.ConsentIO {
	io := session.ConsentIO{}
	io.Confirm, _ = args["confirm"].(bool)
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil || req.Session == nil {
		return io
	}
	version := ""
	if p := req.Session.InitializeParams(); p != nil {
		version = p.ProtocolVersion
	}
	if version >= protocolDeferred {
		io.Deferred = true
		io.Answers = map[string]session.Answer{}
		for id, resp := range req.Params.InputResponses {
			if er, ok := resp.(*mcp.ElicitResult); ok {
				io.Answers[id] = answerOf(er.Action, er.Content)
			}
		}
		return io
	}
	ss := req.Session
	io.Elicit = func(ctx context.Context, message string) (session.Answer, error) {
		res, err := ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: consentSchema()})
		if err != nil {
			// go-sdk checks the answer against the schema and refuses
			// one that does not fit with this error; no sentinel says it.
			if strings.Contains(err.Error(), "does not match requested schema") {
				return session.Answer{}, fmt.Errorf("%w: %v", session.ErrUnfitAnswer, err)
			}
			return session.Answer{}, err
		}
		return answerOf(res.Action, res.Content), nil
	}
	return io
}
