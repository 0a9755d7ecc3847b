function(content, html) {
  // @include form_helpers.js
  let el = this;
  if (el.localName !== 'iframe' && !el.isContentEditable) {
    const inner = el.querySelector('iframe,[contenteditable],.ql-editor,.ProseMirror');
    if (!inner) return {not_editor: true, surface: selectorOf(el)};
    el = inner;
  }
  while (el.localName !== 'iframe' && el.parentElement && el.parentElement.isContentEditable) el = el.parentElement;
  const kind = editorKind(el);
  const body = surfaceOf(el);
  if (!body) return {unreadable: true, kind, surface: selectorOf(el)};
  if (el.localName === 'iframe' && !editableDoc(body.ownerDocument) && !body.isContentEditable) return {not_editor: true, surface: selectorOf(el)};
  if (el.localName !== 'iframe' && !el.isContentEditable) return {not_editor: true, surface: selectorOf(el)};
  const doc = body.ownerDocument;
  const surface = el.localName === 'iframe' ? selectorOf(el) + ' > body' : selectorOf(el);
  body.focus();
  let done = false;
  if (!html) {
    // Typed text, the way a person's input arrives: editors that keep a
    // model (ProseMirror, Quill) hear it as an edit.
    try {
      const sel = doc.getSelection(), range = doc.createRange();
      range.selectNodeContents(body);
      sel.removeAllRanges();
      sel.addRange(range);
      done = doc.execCommand('insertText', false, content) && norm(body.innerText) === norm(content);
    } catch (e) { done = false; }
    if (!done) body.innerText = content;
  } else {
    body.innerHTML = content;
  }
  body.dispatchEvent(new InputEvent('input', {bubbles: true, composed: true, inputType: html ? 'insertFromPaste' : 'insertText'}));
  body.dispatchEvent(new Event('change', {bubbles: true}));
  const out = {kind, surface, written: content.length, surface_chars: String(body.innerText || '').length};
  const field = postedFieldOf(el);
  if (field) {
    field.value = body.innerHTML;
    field.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
    field.dispatchEvent(new Event('change', {bubbles: true}));
    out.synced_editor = field.id || field.name;
    out.synced_field = field.name || field.id;
    out.field_chars = field.value.length;
  }
  return out;
}
