package page

import "testing"

// ReadsPrivate's rule: the label decides, then the name and value; what
// nobody can classify is not private.
func TestReadsPrivate(t *testing.T) {
	cases := []struct {
		p    PublishState
		want bool
	}{
		{PublishState{Name: "is_draft", Value: "1", Label: "Draft"}, true},
		{PublishState{Name: "is_draft", Value: "0", Label: "Publish"}, false},
		{PublishState{Name: "is_draft", Value: "1"}, true},
		{PublishState{Name: "is_draft", Value: "0"}, false},
		{PublishState{Name: "is_live", Value: "1"}, false},
		{PublishState{Name: "is_live", Value: "0"}, true},
		{PublishState{Name: "status", Value: "x", Label: "Unpublished"}, true},
		{PublishState{Name: "status", Value: "x", Label: "Go live"}, false},
		{PublishState{Name: "visibility", Value: "private"}, true},
		{PublishState{Name: "visibility", Value: "everyone"}, false},
		{PublishState{Name: "hidden", Value: "on"}, false},
		// Words, not substrings: a label that only looks private is not.
		{PublishState{Name: "audience", Value: "1", Label: "Publish to the office intranet"}, false},
		{PublishState{Name: "audience", Value: "2", Label: "Office"}, false},
		{PublishState{Name: "status", Value: "x", Label: "Draft (public preview link)"}, false},
		{PublishState{Name: "status", Value: "x", Label: "Hidden"}, true},
	}
	for _, c := range cases {
		if got := readsPrivate(c.p); got != c.want {
			t.Errorf("%+v: %v, want %v", c.p, got, c.want)
		}
	}
	if StateIsPrivate(nil) {
		t.Error("no state read as private")
	}
	if StateIsPrivate([]PublishState{{Name: "is_draft", Value: "1", Label: "Draft"}, {Name: "is_live", Value: "1"}}) {
		t.Error("a state with one live member read as private")
	}
}

// A control that sends a form publishes when its words say so and none
// says draft or private (save_draft does not send with it).
func TestSubmitterPublishes(t *testing.T) {
	cases := []struct {
		s    Submitter
		want bool
	}{
		{Submitter{Text: "Publish"}, true},
		{Submitter{Text: "Update", Name: "publish", Value: "Publish"}, true}, // WordPress
		{Submitter{Text: "Go live"}, true},
		{Submitter{Text: "Save draft", Name: "action", Value: "draft"}, false},
		{Submitter{Text: "Save Draft", Name: "save"}, false},
		{Submitter{Text: "Submit"}, false},
		{Submitter{Text: "Save", Name: "_save"}, false},
		{Submitter{Text: "Unpublish"}, false},
		{Submitter{Text: "Save", Name: "action", Value: "publish"}, true},
		{Submitter{Text: "Publishing options"}, true}, // reads as publishing: not sent by save_draft
	}
	for _, c := range cases {
		if got := c.s.Publishes(); got != c.want {
			t.Errorf("%+v: %v, want %v", c.s, got, c.want)
		}
	}
}
