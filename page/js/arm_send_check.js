function(fields, token) {
  const win = this.ownerDocument.defaultView;
  if (globalThis.lyradSendCheck) globalThis.lyradSendCheck.win.removeEventListener('formdata', globalThis.lyradSendCheck.listener);
  globalThis.lyradSendStopped = '';
  const names = Object.keys(fields);
  const want = {};
  for (const n of names) want[n] = fields[n].map(String).sort();
  const q = s => JSON.stringify(String(s).slice(0, 60));
  const listener = e => {
    if (!e.isTrusted) return;
    e.stopImmediatePropagation();
    let bad = '';
    for (const n of names) {
      const got = e.formData.getAll(n).map(v => typeof v === 'string' ? v : '\u0000file').sort();
      if (JSON.stringify(got) !== JSON.stringify(want[n])) {
        bad = q(n) + ' sent as ' + (got.length ? got.slice(0, 4).map(q).join(', ') : 'nothing') +
          ', approved as ' + (want[n].length ? want[n].slice(0, 4).map(q).join(', ') : 'nothing');
        break;
      }
    }
    if (!bad) {
      // Told at once, while the page still answers: a frame whose
      // navigation is held answers no DevTools call.
      try { if (typeof lyradSendChecked === 'function') lyradSendChecked(token); } catch (x) {}
      return;
    }
    const form = e.target;
    const parent = form.parentNode, next = form.nextSibling;
    globalThis.lyradSendStopped = bad;
    if (!parent) return;
    parent.removeChild(form);
    setTimeout(() => { try { parent.insertBefore(form, next && next.parentNode === parent ? next : null); } catch (x) {} }, 0);
  };
  const check = {win, listener, token};
  globalThis.lyradSendCheck = check;
  win.addEventListener('formdata', listener);
  return true;
}
