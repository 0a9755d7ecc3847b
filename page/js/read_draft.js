function(maxChars) {
  // @include form_helpers.js
  const roots = allRoots();
  const scope = scopeOf(roots, '', false).el;
  const out = {scope: describeScope(scope), fields: [], editors: [], attachments: [], state: [], submits: [],
    hiddenCount: 0, totalFields: 0};
  for (const el of queryAll(roots, 'input,select,textarea')) {
    if (!within(scope, el) || isButtonInput(el)) continue;
    if (el.localName === 'input' && el.type === 'hidden') { out.hiddenCount++; continue; }
    if (el.type === 'file') {
      if (out.attachments.length < 20)
        out.attachments.push({name: cut(el.name, 80), id: cut(el.id, 80), accept: cut(el.accept, 120), multiple: el.multiple,
          files: Array.from(el.files || []).slice(0, 20).map(f => cut(f.name, 120)), usable: usableOf(el)});
      continue;
    }
    if (el.checked && out.state.length < 20 && isPublishControl(el))
      out.state.push({name: cut(el.name, 80), value: cut(el.value, 80), label: cut(optionLabel(el), 60), id: cut(el.id, 80)});
    if ((el.type === 'checkbox' || el.type === 'radio') && !el.checked) continue;
    let value = el.localName === 'select' ? Array.from(el.selectedOptions).map(o => o.text).join(', ') : String(el.value);
    if (!norm(value) && el.type !== 'checkbox' && el.type !== 'radio') continue;
    out.totalFields++;
    if (out.fields.length >= 200) continue;
    const f = {name: cut(el.name, 80), label: labelOf(el), type: el.localName === 'input' ? el.type : el.localName, usable: usableOf(el)};
    if (el.type === 'password') f.filled = true;
    else {
      f.value = cutRaw(value.slice(0, maxChars * 2), maxChars);
      if (value.length > maxChars) f.valueChars = value.length;
    }
    out.fields.push(f);
  }
  for (const el of editorsIn(roots, scope).slice(0, 20)) out.editors.push(editorOf(el, maxChars));
  for (const b of submitControls(roots)) {
    if (!within(scope, b) || out.submits.length >= 20) continue;
    out.submits.push({text: shownText(b), name: cut(b.getAttribute('name'), 80), selector: selectorOf(b), usable: usableOf(b)});
  }
  return out;
}
