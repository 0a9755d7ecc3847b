function() {
  // @include form_helpers.js
  const roots = allRoots();
  const form = queryAll(roots, 'form')[0] || null;
  const out = {form_present: !!form, errors: [], alert: ''};
  const add = text => {
    if (out.errors.length >= 5 || !text || out.errors.some(e => e.includes(text) || text.includes(e))) return;
    out.errors.push(text);
    if (!out.alert) out.alert = text;
  };
  const errorBox = el => el.getAttribute('role') === 'alert' || el.id === 'alert' || (classTokens(el).includes('alert') && !classSays(el, OK_WORD)) || classSays(el, ERROR_WORD);
  const boxSel = '[role=alert],#alert,.alert,[class*=error i],[class*=invalid],[class*=alertbox]';
  // Controls are not messages (a .btn-error Delete button), nor is text
  // without words (a required field's red asterisk). A label can be one
  // (jQuery Validate writes <label class=error>).
  const control = 'a[href],button,input,select,textarea,summary,[role=button],[role=link]';
  // A box is a message: not a field, not the page, not a wrapper of
  // the whole app (a React .error-boundary) that holds pages of text.
  const boxes = queryAll(roots, boxSel).filter(b => errorBox(b) && !classSays(b, OK_WORD) &&
    !['form', 'body', 'html'].includes(b.localName) && !b.closest(control) && visible(b) &&
    String(b.textContent).length < 4000 && String(b.innerText || '').length <= 1000 &&
    /\p{L}{2}/u.test(b.innerText || ''));
  // The innermost: a wrapper (.has-error around a field) gives way to the
  // message inside it.
  const inner = boxes.filter(b => !boxes.some(o => o !== b && b.contains(o)));
  for (const box of inner) add(cut(box.innerText || box.textContent, 300));
  const textById = (el, attr) => {
    const ids = (el.getAttribute(attr) || '').split(/\s+/).filter(Boolean).slice(0, 4);
    const root = el.getRootNode();
    return norm(ids.map(id => { const t = root.getElementById ? root.getElementById(id) : null; return t && visible(t) ? t.innerText || t.textContent : ''; }).join(' '));
  };
  for (const el of queryAll(roots, '[aria-invalid=true i]')) {
    if (out.errors.length >= 5 || !visible(el)) continue;
    const msg = textById(el, 'aria-errormessage') || textById(el, 'aria-describedby') || (el.validationMessage || 'not valid');
    const label = labelOf(el) || cut(el.getAttribute('name'), 60);
    add(cut((label ? label + ': ' : '') + msg, 300));
  }
  out.refused = out.errors.length > 0;
  return out;
}
