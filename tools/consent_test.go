package tools

import (
	"testing"
)

// An elicitation's answer becomes session's typed answer: a yes or no
// when it carries the one boolean asked, unfit when it carries anything
// else, and nothing but its action otherwise.
func TestAnswerOf(t *testing.T) {
	for _, c := range []struct {
		action  string
		content map[string]any
		approve any // nil, true or false
		unfit   bool
	}{
		{"accept", nil, nil, false},
		{"accept", map[string]any{"approve": true}, true, false},
		{"accept", map[string]any{"approve": false}, false, false},
		{"accept", map[string]any{"approve": "yes"}, nil, true},
		{"accept", map[string]any{"approve": true, "also": 1}, nil, true},
		{"decline", map[string]any{"approve": true}, nil, false},
		{"cancel", nil, nil, false},
	} {
		a := answerOf(c.action, c.content)
		var got any
		if a.Approve != nil {
			got = *a.Approve
		}
		if a.Action != c.action || got != c.approve || a.Unfit != c.unfit {
			t.Errorf("%s %v: %+v (approve %v), want approve %v unfit %v", c.action, c.content, a, got, c.approve, c.unfit)
		}
	}
	if s := consentSchema(); s["required"].([]string)[0] != "approve" {
		t.Errorf("consent schema %v", s)
	}
}
