function() {
  // @include helpers.js
  const el = this;
  const s = {connected: el.isConnected, visible: visible(el), enabled: true, textField: false, valueType: '', readOnly: false,
    tag: el.localName, role: roleOf(el), name: nameOf(el)};
  // Disabled natively (a fieldset included) or by aria-disabled.
  s.enabled = !(el.matches(':disabled') || el.closest('[aria-disabled="true"]'));
  const t = el.localName;
  const textTypes = ['text', 'search', 'email', 'url', 'tel', 'password', 'number'];
  s.textField = t === 'textarea' || (t === 'input' && textTypes.includes(el.type)) || el.isContentEditable;
  // Inputs whose value is set whole, in its ISO form (set_value.js).
  s.valueType = t === 'input' && ['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range'].includes(el.type) ? el.type : '';
  s.readOnly = (t === 'textarea' || t === 'input') ? el.readOnly : el.getAttribute('aria-readonly') === 'true';
  s.fileInput = t === 'input' && el.type === 'file';
  // A link that saves its file rather than load it: a click on it starts
  // a download with no navigation before it.
  s.saves = !!el.closest('a[href][download], area[href][download]');
  return s;
}
