function(root, whole, maxFields, valueChars) {
  // @include form_helpers.js
  const roots = allRoots();
  const sc = scopeOf(roots, root, whole);
  if (sc.missing) return {found: false};
  const scope = sc.el;
  const out = {found: true, scope: describeScope(scope), fields: [], buttons: [], editors: [], drafts: [],
    hiddenCount: 0, totalFields: 0, optionLimit: 60};
  for (const el of queryAll(roots, 'input,select,textarea')) {
    if (!within(scope, el)) continue;
    if (el.localName === 'input' && el.type === 'hidden') { out.hiddenCount++; continue; }
    if (isButtonInput(el)) continue;
    if (out.drafts.length < 20 && isPublishControl(el))
      out.drafts.push({name: cut(el.name, 80), id: cut(el.id, 80), value: cut(el.value, 80), checked: el.checked,
        label: cut(optionLabel(el), 60), selector: selectorOf(el)});
    out.totalFields++;
    if (out.fields.length >= maxFields) continue;
    const f = {tag: el.localName, type: el.localName === 'input' ? el.type : (el.localName === 'select' ? el.type : 'textarea'),
      name: cut(el.name, 120), id: cut(el.id, 120), label: labelOf(el), required: !!el.required,
      disabled: disabledOf(el), usable: usableOf(el)};
    if (el.localName === 'select') {
      const opts = el.options;
      f.options = [];
      for (let i = 0; i < opts.length && i < 60; i++)
        f.options.push({value: cut(opts[i].value, 120), text: cut(opts[i].text, 80), selected: opts[i].selected});
      if (opts.length > 60) f.optionCount = opts.length;
      f.multiple = el.multiple;
      f.value = cut(el.value, valueChars);
    } else if (el.type === 'file') {
      f.accept = cut(el.accept, 120);
      f.multiple = el.multiple;
    } else if (el.type === 'checkbox' || el.type === 'radio') {
      f.checked = el.checked;
      f.value = cut(el.value, valueChars);
    } else if (el.type === 'password') {
      f.filled = el.value !== '';
    } else {
      const v = String(el.value);
      f.value = cutRaw(v.slice(0, valueChars * 2), valueChars);
      if (v.length > valueChars) f.valueChars = v.length;
    }
    out.fields.push(f);
  }
  const btnSel = 'button,input[type=submit],input[type=image],input[type=button],input[type=reset],[role=button],[type="submit" i]';
  const subs = new Set(submitControls(roots));
  for (const b of new Set([...queryAll(roots, btnSel), ...subs])) {
    if (!within(scope, b) || out.buttons.length >= 40) continue;
    const native = b.localName === 'button' || b.localName === 'input';
    if (!native && !b.matches('[role=button]') && !subs.has(b)) continue;
    if (native && b.type === 'submit' && !subs.has(b)) continue; // listed as its web component
    out.buttons.push({tag: b.localName, type: native ? b.type : (subs.has(b) ? 'submit' : 'button'),
      name: cut(b.getAttribute('name'), 80), id: cut(b.id, 80),
      value: native ? cut(b.value, 80) : '',
      text: shownText(b), usable: usableOf(b), selector: selectorOf(b)});
  }
  for (const el of editorsIn(roots, scope).slice(0, 20)) out.editors.push(editorOf(el, 300));
  return out;
}
