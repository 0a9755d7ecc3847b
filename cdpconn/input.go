package cdpconn

import (
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/target"
)

// inputs remembers when lyrad's own input last reached the browser: the
// commands that act as a person's input would (Input.*, and the answer to
// a JavaScript dialog), by their id, from when each is written until its
// reply is read. Chrome answers Input.dispatchMouseEvent and
// dispatchKeyEvent once the page has handled the event, so the reply's
// time bounds when the page's user activation began. Replies whose caller
// gave up are still counted: the event may yet have been handled.
type inputs struct {
	mu       sync.Mutex
	last     time.Time
	inFlight map[int64]sentInput
}

type sentInput struct {
	at      time.Time
	session target.SessionID
}

// inputPendingCap is how long an unanswered input command counts as still
// arriving: longer than any caller waits for one (page's mouseClick's
// release waits 30 s), after which Chrome has handled or dropped it.
const inputPendingCap = 2 * time.Minute

// maxInFlight bounds the unanswered input commands remembered.
const maxInFlight = 1024

// isInput: a command the page sees as a person's input.
func isInput(method string) bool {
	return strings.HasPrefix(method, "Input.") || method == "Page.handleJavaScriptDialog"
}

func (in *inputs) sent(id int64, session target.SessionID) {
	now := time.Now()
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.inFlight == nil {
		in.inFlight = map[int64]sentInput{}
	}
	if len(in.inFlight) >= maxInFlight {
		for k, e := range in.inFlight {
			if now.Sub(e.at) > inputPendingCap || len(in.inFlight) >= maxInFlight {
				delete(in.inFlight, k)
			}
		}
	}
	in.inFlight[id] = sentInput{now, session}
	in.last = now
}

func (in *inputs) replied(id int64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if _, ok := in.inFlight[id]; ok {
		delete(in.inFlight, id)
		in.last = time.Now()
	}
}

// detached: a session that went away answers none of its commands.
func (in *inputs) detached(session target.SessionID) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for k, e := range in.inFlight {
		if e.session == session {
			delete(in.inFlight, k)
			in.last = time.Now()
		}
	}
}

func (in *inputs) at() time.Time {
	now := time.Now()
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, e := range in.inFlight {
		if now.Sub(e.at) <= inputPendingCap {
			return now
		}
	}
	return in.last
}

// InputAt is the last time lyrad's own input (an Input.* command, the
// answer to a dialog) was written to the browser or answered by it; now
// while one is still unanswered (for up to two minutes). Zero when there
// was none. Input from anywhere else (a person at the window) is not
// counted: this is the agent's.
func (c *Conn) InputAt() time.Time { return c.inputs.at() }
