function() {
  let el = this;
  if (el.localName === 'label' && el.control) el = el.control;
  if (!el.isConnected) return {field: false};
  const cut = s => s.length > 200 ? s.slice(0, 199) + '…' : s;
  const t = el.localName;
  if (t === 'input' && (el.type === 'checkbox' || el.type === 'radio')) return {field: true, checkable: true, checked: el.checked};
  const role = el.getAttribute('role');
  if (['checkbox', 'switch', 'radio', 'menuitemcheckbox', 'menuitemradio'].includes(role))
    return {field: true, checkable: true, checked: el.getAttribute('aria-checked') === 'true'};
  if (t === 'input' && el.type === 'password') return {field: true, password: true, filled: el.value !== ''};
  if (t === 'input' || t === 'textarea') return {field: true, value: cut(el.value)};
  if (t === 'select') return {field: true, value: cut(el.multiple ? [...el.selectedOptions].map(o => o.value).join(', ') : el.value)};
  if (el.isContentEditable) return {field: true, value: cut((el.innerText || '').replace(/\n+$/, ''))};
  return {field: false};
}
