function() {
  // @include form_helpers.js
  const f = formOf(this);
  if (!f || f.noValidate || this.formNoValidate) return {blocked: false, fields: []};
  const bad = [];
  for (const el of f.elements) {
    if (bad.length >= 5) break;
    if (!el.willValidate || el.validity.valid) continue;
    const label = labelOf(el) || cut(el.name, 60) || el.type;
    bad.push(cut(label + ': ' + (el.validationMessage || 'not valid'), 300));
  }
  return {blocked: bad.length > 0, fields: bad};
}
