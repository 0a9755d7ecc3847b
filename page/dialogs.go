package page

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// Native dialogs (alert, confirm, prompt, beforeunload) stop a page until
// they are answered. AnswerDialogs answers each the moment it opens, as
// its caller decides.

// The types of dialog a page raises.
const (
	DialogAlert        = string(cdppage.DialogTypeAlert)
	DialogConfirm      = string(cdppage.DialogTypeConfirm)
	DialogPrompt       = string(cdppage.DialogTypePrompt)
	DialogBeforeunload = string(cdppage.DialogTypeBeforeunload)
)

// Dialog is a dialog a page opened: the session of the document that
// raised it, its type (DialogAlert, ...), the page's message and a
// prompt's default text.
type Dialog struct {
	Session       target.SessionID
	Type          string
	Message       string
	DefaultPrompt string
}

// DialogAnswer is how a dialog is answered: accepted or not, and the text
// a prompt receives.
type DialogAnswer struct {
	Accept     bool
	PromptText string
}

// AnswerDialogs answers every dialog the browser raises from now until the
// connection ends: decide is asked, in the order they open, and each
// answer is sent on its own goroutine (a reply that is slow to come must
// not hold the next tab's dialog); failed hears of an answer the browser
// did not take.
func AnswerDialogs(conn *cdpconn.Conn, decide func(Dialog) DialogAnswer, failed func(error)) {
	events, stop := conn.Subscribe(cdppage.JavascriptDialogOpening.Method)
	go func() {
		defer stop()
		for ev := range events {
			var d cdppage.EventJavascriptDialogOpening
			if jsonv2.Unmarshal(ev.Params, &d) != nil {
				continue
			}
			a := decide(Dialog{Session: ev.SessionID, Type: string(d.Type), Message: d.Message, DefaultPrompt: d.DefaultPrompt})
			go func(s *cdpconn.Session) {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if _, err := cdp.Call(ctx, s, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: a.Accept, PromptText: a.PromptText}); err != nil && failed != nil {
					failed(err)
				}
			}(conn.Session(ev.SessionID))
		}
	}()
}
