package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/session"
)

// collaborationTools are the tools for working with the person at the
// window: request_takeover, resume_after_takeover, ask_user_to_do,
// highlight_element. Headless, there is no one there: they answer
// unattended and lock nothing.
// where is where a collaboration call stands: the tab, and the element it
// points to.
type where struct {
	place
	Selector string `json:"selector,omitempty"`
	Matches  *int   `json:"matches,omitempty"`
}

// place is where the tab stands; a takeover names no element.
type place struct {
	URL   string  `json:"url,omitempty"`
	Title *string `json:"title,omitempty"`
}

func whereOf(i *session.TakeoverInfo) where {
	w := where{place: placeOf(i)}
	if i.Selector != "" {
		w.Selector, w.Matches = i.Selector, ptr(i.Matches)
	}
	return w
}

func placeOf(i *session.TakeoverInfo) place {
	if i.URL == "" {
		return place{}
	}
	return place{URL: i.URL, Title: ptr(i.Title)}
}

type takeoverReply struct {
	Status string `json:"status"`
	Reason string `json:"reason"`
	place
	Hint string `json:"hint"`
}

type resumeReply struct {
	Resumed bool `json:"resumed"`
	place
}

type askReply struct {
	Status      string `json:"status"`
	Instruction string `json:"instruction"`
	where
	Hint string `json:"hint"`
}

func collaborationTools(d Deps) []*tool {
	m := d.Session
	return []*tool{
		{
			name:  "request_takeover",
			title: "Hand the browser to the user",
			description: "Give the user the window for a step you must not do (a password, a CAPTCHA, 2FA, a payment). " +
				"Until resume_after_takeover, acting tools answer takeover_active; reads work. More: lyrad://guide.",
			params: []Param{{Name: "reason", Kind: "string", Required: true, Description: "What the user should do; shown to them."}},
			output: outOf[takeoverReply](),
			run: func(ctx context.Context, c *call) (any, error) {
				i, err := m.RequestTakeover(ctx, c.caller, c.str("reason"))
				if err != nil {
					return nil, err
				}
				if c.ss != nil {
					// Logging is deprecated from protocol 2026-07-28 but still
					// delivered; it is the one way to tell the client itself.
					//lint:ignore SA1019 the issue asks for a log notification
					_ = c.ss.Log(ctx, &mcp.LoggingMessageParams{Level: "notice", Logger: "lyrad",
						Data: "The user has control of the browser: " + i.Reason + ". The agent waits for resume_after_takeover."})
				}
				return takeoverReply{Status: session.StatusTakeover, Reason: i.Reason, place: placeOf(i),
					Hint: "The user has control. When they say they are done, call resume_after_takeover; reads work meanwhile."}, nil
			},
		},
		{
			name:        "resume_after_takeover",
			title:       "Take the browser back",
			description: "End a takeover once the user says they are done; they are asked to confirm (a no keeps it).",
			params: []Param{
				{Name: "reason", Kind: "string", Description: "What you will do next; shown to the user."},
				confirmParam,
			},
			output: outOf[resumeReply](),
			run: func(ctx context.Context, c *call) (any, error) {
				i, err := m.ResumeAfterTakeover(ctx, c.caller, c.str("reason"))
				if err != nil {
					return nil, err
				}
				return resumeReply{Resumed: i.Resumed, place: placeOf(i)}, nil
			},
		},
		{
			name:  "ask_user_to_do",
			title: "Ask the user to do a step",
			description: "Ask the person at the window to do a step you must not (credentials, CAPTCHA, 2FA, payment); highlights selector if given. " +
				"Answers awaiting_user at once, locks nothing: relay the instruction, re-read later.",
			params: []Param{
				{Name: "instruction", Kind: "string", Required: true, Description: "What the user should do."},
				{Name: "selector", Kind: "string", Description: "What to point them to."},
			},
			output: outOf[askReply](),
			run: func(ctx context.Context, c *call) (any, error) {
				i, err := m.AskUser(ctx, c.caller, c.str("instruction"), c.str("selector"))
				if err != nil {
					return nil, err
				}
				return askReply{Status: session.StatusAwaitingUser, Instruction: c.str("instruction"), where: whereOf(i),
					Hint: "Relay the instruction to the user, then read the page again later to see whether it is done."}, nil
			},
		},
		{
			name:        "highlight_element",
			title:       "Point the user to an element",
			description: "Outline the element for 4 s for the user to see; the browser draws it, not the page. Fails like click.",
			params:      []Param{selectorParam(true)},
			output:      outOf[where](),
			run: func(ctx context.Context, c *call) (any, error) {
				i, err := m.Highlight(ctx, c.caller, c.str("selector"))
				if err != nil {
					return nil, err
				}
				return whereOf(i), nil
			},
		},
	}
}
