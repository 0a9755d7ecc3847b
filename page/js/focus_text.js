// timer, when given, names the wait of a drain to come (drain.js): the
// input event the typed text fires starts it, so the drain's wait is
// timed from what the page saw, not from when lyrad heard of it. The
// listener is on the window, bubbling, so the page's own input handlers
// (on the field or delegated to its ancestors) ran before it and their
// timers are due first.
function(timer, ms) {
  const el = this;
  const prev = globalThis.__lyradTyped;
  if (prev) removeEventListener('input', prev.on);
  delete globalThis.__lyradTyped;
  el.focus(); // scrolls it into view when it is not
  if (el.localName === 'input' || el.localName === 'textarea') {
    try { el.select(); } catch (e) { el.setSelectionRange?.(0, el.value.length); }
  } else {
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  // The deepest active element: focus inside a shadow root stops at its host.
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  const focused = a === el || el.contains(a);
  if (focused && timer) {
    const t = {token: timer, p: null};
    // Only the browser's own event starts it: one the page dispatches
    // itself before the text arrives does not shorten the wait.
    t.on = e => {
      if (!e.isTrusted) return;
      removeEventListener('input', t.on);
      t.p = new Promise(resolve => setTimeout(resolve, ms || 0));
    };
    addEventListener('input', t.on);
    globalThis.__lyradTyped = t;
  }
  return focused;
}
