package session

import (
	"testing"
	"time"
)

// TestUserHand: a gesture is the user's only with a real press heard after
// the takeover began and after the agent's activation could end, and no
// later than the request.
func TestUserHand(t *testing.T) {
	t0 := time.Now()
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	var h hands
	for _, c := range []struct {
		name                  string
		since, input, gesture float64
		presses               []float64
		user                  bool
		why                   string
	}{
		{"the agent clicked, then the takeover; the page's timer", 1, 0.5, 3, nil, false, "agent_input"},
		{"a press in the agent's window does not make it the user's", 1, 0.5, 3, []float64{2}, false, "agent_input"},
		{"held past the window, no one pressed", 1, 0.5, 10, nil, false, "no_real_input"},
		{"held past the window, the press inside it", 1, 0.5, 10, []float64{4}, false, "no_real_input"},
		{"a press after the window, then the request", 1, 0.5, 10, []float64{7}, true, ""},
		{"the press after the request", 1, 0.5, 10, []float64{11}, false, "no_real_input"},
		{"no agent input: a press since the takeover", 1, -1, 3, []float64{2}, true, ""},
		{"no agent input: the press before the takeover", 1, -1, 3, []float64{0.5}, false, "no_real_input"},
		{"the agent's input long before the takeover", 20, 0.5, 22, []float64{21}, true, ""},
	} {
		h = hands{}
		for _, p := range c.presses {
			h.pressed(at(p))
		}
		input := time.Time{}
		if c.input >= 0 {
			input = at(c.input)
		}
		user, why := userHandAt(at(c.since), input, at(c.gesture), h.between)
		if user != c.user || why != c.why {
			t.Errorf("%s: %v %q, want %v %q", c.name, user, why, c.user, c.why)
		}
	}
	// The ring keeps the latest presses.
	h = hands{}
	for i := range 3 * maxPresses {
		h.pressed(at(float64(i)))
	}
	if !h.between(at(float64(3*maxPresses-2)), at(float64(3*maxPresses))) || h.between(at(-1), at(float64(maxPresses))) {
		t.Error("the ring does not keep the latest presses")
	}
}
