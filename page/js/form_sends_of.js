function() {
  // @include form_helpers.js
  const f = formOf(this);
  const out = {action: '', method: '', fields: {}, state: []};
  const roots = allRoots();
  for (const el of queryAll(roots, 'input[type=radio],input[type=checkbox]')) {
    if (f && el.form !== f) continue;
    if (!el.checked || !isPublishControl(el) || out.state.length >= 20) continue;
    out.state.push({name: cut(el.name, 80), value: cut(el.value, 80), label: cut(optionLabel(el), 60), id: cut(el.id, 80)});
  }
  if (!f) return out;
  const submitter = ((this.localName === 'button' && this.type === 'submit') ||
    (this.localName === 'input' && (this.type === 'submit' || this.type === 'image'))) && this.form === f ? this : null;
  out.action = String(submitter && submitter.hasAttribute('formaction') ? submitter.formAction : f.action);
  out.method = String(submitter && submitter.hasAttribute('formmethod') ? submitter.formMethod : f.method);
  const names = [];
  for (const el of f.elements) {
    if (el.localName === 'input' && (el.type === 'radio' || el.type === 'checkbox') && el.name && isPublishControl(el) &&
      !names.includes(el.name) && names.length < 20) names.push(el.name);
  }
  if (!names.length) return out;
  const value = v => String(v).slice(0, 4097).replace(/\r\n|\r|\n/g, '\r\n');
  for (const n of names) out.fields[n] = [];
  const listed = ['input', 'select', 'textarea', 'button', 'fieldset', 'object', 'output'];
  for (const el of f.elements) {
    const name = el.getAttribute('name') || '';
    if (!names.includes(name)) continue;
    if (!listed.includes(el.localName)) { out.fields[name].push('\u0000unreadable'); continue; }
    if (disabledOf(el) || el.closest('datalist')) continue;
    if (el.localName === 'fieldset' || el.localName === 'object' || el.localName === 'output') continue;
    if (el.localName === 'button' || isButtonInput(el)) {
      if (el === submitter && el.type !== 'image') out.fields[name].push(value(el.value));
      continue;
    }
    if (el.localName === 'select') {
      for (const o of el.selectedOptions) if (!o.disabled) out.fields[name].push(value(o.value));
      continue;
    }
    if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio') && !el.checked) continue;
    if (el.localName === 'input' && el.type === 'file') { out.fields[name].push('\u0000unreadable'); continue; }
    out.fields[name].push(value(el.value));
  }
  return out;
}
