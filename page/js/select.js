function(by, want, index) {
  const opts = Array.from(this.options);
  let i = -1;
  if (by === 'index') i = index;
  else if (by === 'value') i = opts.findIndex(o => o.value === want);
  else i = opts.findIndex(o => o.label.trim() === want.trim() || o.text.trim() === want.trim());
  const choices = opts.slice(0, 30).map(o => o.label.trim() || o.value);
  if (i < 0 || i >= opts.length) return {missing: true, choices, count: opts.length};
  const o = opts[i];
  if (o.disabled || (o.parentElement && o.parentElement.tagName === 'OPTGROUP' && o.parentElement.disabled))
    return {disabledOption: true, label: o.label.trim()};
  // Where a person would see it: into view in its panels and the window.
  const r = this.getBoundingClientRect();
  if (r.top < 0 || r.bottom > innerHeight) this.scrollIntoView({block: 'center', behavior: 'instant'});
  if (this.selectedIndex !== i) {
    this.selectedIndex = i;
    this.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
    this.dispatchEvent(new Event('change', {bubbles: true}));
  }
  return {value: o.value, label: o.label.trim(), index: i};
}
