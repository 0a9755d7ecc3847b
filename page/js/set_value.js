function(v) {
  // An empty string arrives as no argument (CallArgument's value is
  // omitted when empty).
  if (v === undefined || v === null) v = '';
  const el = this;
  el.focus();
  const before = el.value;
  el.value = v;
  const now = el.value;
  if (now === '' && v !== '') { el.value = before; return {value: before, refused: true}; }
  if (now !== before) {
    el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
    el.dispatchEvent(new Event('change', {bubbles: true}));
  }
  return {value: el.value, refused: false};
}
