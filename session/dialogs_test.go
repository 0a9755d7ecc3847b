package session

import (
	"testing"

	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/page"
)

// The armed answer belongs to one call: it is in force while that call
// runs, ends with it, and survives a call that only asked for consent.
func TestDialogArming(t *testing.T) {
	var d dialogs
	confirm := page.Dialog{Type: page.DialogConfirm, Message: "Delete?"}
	prompt := page.Dialog{Type: page.DialogPrompt, Message: "Name?", DefaultPrompt: "dflt"}
	alert := page.Dialog{Type: page.DialogAlert}
	before := page.Dialog{Type: page.DialogBeforeunload}

	// Defaults: alerts and beforeunload accepted, confirm and prompt not.
	if !d.answer("t", alert).Accept || !d.answer("t", before).Accept || d.answer("t", confirm).Accept || d.answer("t", prompt).Accept {
		t.Error("defaults")
	}

	d.arm(DialogAnswer{Accept: true, Text: "Ada"})
	if d.answer("t", confirm).Accept {
		t.Error("an armed answer applied before its call began")
	}
	end := d.use("t")
	nested := d.use("t") // beginAction inside a tool's call: nothing armed any more
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
	end = d.use("t")
	if p := d.answer("t", prompt); p.PromptText != "dflt" {
		t.Errorf("empty text: %q, want the default", p.PromptText)
	}
	end(true)

	// A call that only asked for consent leaves it armed for its repeat.
	d.arm(DialogAnswer{Accept: true})
	d.use("t")(false)
	end = d.use("t")
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

// The armed answer goes only to a dialog of the tab the call acts on: a
// prompt another tab (a background popup) raises meanwhile gets the default,
// never the agent's text; so does one from a session no tab claims.
func TestDialogArmedForItsTab(t *testing.T) {
	var d dialogs
	prompt := page.Dialog{Type: page.DialogPrompt, Message: "Name?", DefaultPrompt: "dflt"}
	d.arm(DialogAnswer{Accept: true, Text: "s3cr3t"})
	end := d.use("active")
	for _, other := range []target.ID{"background", ""} {
		if p := d.answer(other, prompt); p.Accept || p.PromptText != "" {
			t.Errorf("tab %q's prompt got the armed answer %+v", other, p)
		}
	}
	if p := d.answer("active", prompt); !p.Accept || p.PromptText != "s3cr3t" {
		t.Errorf("the active tab's prompt: %+v", p)
	}
	end(true)
	rs := d.since(d.log[0].At)
	if len(rs) != 3 || rs[0].By != "default" || rs[1].By != "default" || rs[2].By != "handle_dialog" {
		t.Errorf("records %+v", rs)
	}

	// tabs(action="close", index) resolves the active tab, then acts on
	// another: the answer follows it there.
	d.arm(DialogAnswer{Accept: false})
	end = d.use("active")
	d.retarget("active", "closing")
	before := page.Dialog{Type: page.DialogBeforeunload}
	if d.answer("active", before).Accept != true || d.answer("closing", before).Accept != false {
		t.Error("the answer did not follow the call to the tab it closes")
	}
	end(true)
}
