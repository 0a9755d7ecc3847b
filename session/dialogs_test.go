package session

import (
	"testing"

	"github.com/chromedp/cdproto/page"
)

// The armed answer belongs to one call: it is in force while that call
// runs, ends with it, and survives a call that only asked for consent.
func TestDialogArming(t *testing.T) {
	var d dialogs
	confirm := &page.EventJavascriptDialogOpening{Type: page.DialogTypeConfirm, Message: "Delete?"}
	prompt := &page.EventJavascriptDialogOpening{Type: page.DialogTypePrompt, Message: "Name?", DefaultPrompt: "dflt"}
	alert := &page.EventJavascriptDialogOpening{Type: page.DialogTypeAlert}
	before := &page.EventJavascriptDialogOpening{Type: page.DialogTypeBeforeunload}

	// Defaults: alerts and beforeunload accepted, confirm and prompt not.
	if !d.answer("t", alert).Accept || !d.answer("t", before).Accept || d.answer("t", confirm).Accept || d.answer("t", prompt).Accept {
		t.Error("defaults")
	}

	d.arm(DialogAnswer{Accept: true, Text: "Ada"})
	if d.answer("t", confirm).Accept {
		t.Error("an armed answer applied before its call began")
	}
	end := d.use()
	nested := d.use() // beginAction inside a tool's call: nothing armed any more
	if p := d.answer("t", prompt); !p.Accept || p.PromptText != "Ada" {
		t.Errorf("armed prompt answer %+v", p)
	}
	nested(true)
	if !d.answer("t", confirm).Accept {
		t.Error("a nested end ended the outer call's answer")
	}
	end(true)
	if d.answer("t", confirm).Accept {
		t.Error("the answer outlived its call")
	}

	// Empty text accepts the prompt's default.
	d.arm(DialogAnswer{Accept: true})
	end = d.use()
	if p := d.answer("t", prompt); p.PromptText != "dflt" {
		t.Errorf("empty text: %q, want the default", p.PromptText)
	}
	end(true)

	// A call that only asked for consent leaves it armed for its repeat.
	d.arm(DialogAnswer{Accept: true})
	d.use()(false)
	end = d.use()
	if !d.answer("t", confirm).Accept {
		t.Error("the answer did not survive a consent round")
	}
	end(true)

	rs := d.since(d.log[0].At, "t")
	if len(rs) != 10 || rs[4].By != "default" || rs[5].By != "handle_dialog" || rs[9].By != "handle_dialog" || rs[9].Accepted != true {
		t.Errorf("records %+v", rs)
	}
	if len(d.since(d.log[0].At, "other")) != 0 {
		t.Error("records of another tab")
	}
}
