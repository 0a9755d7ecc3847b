function() {
  const el = this;
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
  return a === el || el.contains(a);
}
