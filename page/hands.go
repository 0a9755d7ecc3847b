package page

import (
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// Real input at the window: a listener in lyrad's isolated world of every
// document tells lyrad of each trusted pointer press and key press
// (Runtime.bindingCalled of InputBinding). A page cannot make a trusted
// event, and cannot see or call the binding (it exists in lyrad's world
// only); lyrad's own Input.* commands are trusted too, so whoever reads
// these tells them apart by when lyrad last sent one
// (cdpconn.Conn.InputAt).
//
// Chrome adds a binding named for a world only to the contexts of that
// world that exist when Runtime.addBinding is called (with no
// Runtime.enable, which lyrad never sends): BindInput is sent again each
// time a frame commits a document. The listener looks the binding up at
// each event, so one a document had before it was bound is not reported
// (a press in the moment between a document's commit and the bind).

// InputBinding is the binding the listener reports through.
const InputBinding = "__lyradInput"

// inputWatch runs at the start of every document, before its own scripts,
// in lyrad's world: capturing on the window, where an event's dispatch
// begins, passive, changing nothing the page sees.
const inputWatch = `(() => {
  if (globalThis.__lyradWatching) return;
  globalThis.__lyradWatching = true;
  const tell = e => {
    const b = globalThis.` + InputBinding + `;
    if (e.isTrusted && typeof b === 'function') b(e.type);
  };
  for (const t of ['pointerdown', 'mousedown', 'keydown', 'touchstart']) {
    addEventListener(t, tell, {capture: true, passive: true});
  }
})()`

// Sender sends a command without waiting for its reply.
type Sender interface {
	Send(method string, params any)
}

// WatchInput installs the listener in every document the target will load
// and in those it has, then binds it.
func WatchInput(q Sender) {
	now := true
	q.Send(cdppage.AddScriptToEvaluateOnNewDocument.Method, cdppage.AddScriptToEvaluateOnNewDocumentParams{
		Source: inputWatch, WorldName: WorldName, RunImmediately: &now,
	})
	BindInput(q)
}

// BindInput adds the binding to the target's lyrad worlds that exist now.
func BindInput(q Sender) {
	q.Send(runtime.AddBinding.Method, runtime.AddBindingParams{Name: InputBinding, ExecutionContextName: WorldName})
}
