function(want) {
  // @include form_helpers.js
  const roots = allRoots();
  const forms = queryAll(roots, 'form');
  const subs = submitControls(roots).map(el => ({el, text: shownText(el), usable: usableOf(el)}));
  const w = norm(want);
  let how = 'exact', m = subs.filter(s => s.text === w);
  if (!m.length) { how = 'case'; m = subs.filter(s => s.text.toLowerCase() === w.toLowerCase()); }
  const usable = m.filter(s => s.usable);
  if (usable.length) m = usable;
  const key = s => [forms.indexOf(formOf(s.el)), s.el.getAttribute('name') || '', s.el.getAttribute('value') || '',
    s.el.getAttribute('formaction') || '', s.el.getAttribute('formmethod') || '', s.el.localName].join('\u0000');
  const ambiguous = m.length > 1 && m.some(s => key(s) !== key(m[0]));
  const desc = s => ({text: s.text, selector: selectorOf(s.el), usable: s.usable,
    form: describeScope(formOf(s.el))});
  const info = {matches: m.length, how: m.length ? how : '', ambiguous,
    candidates: (ambiguous ? m : subs).slice(0, 12).map(desc)};
  return {el: m.length && !ambiguous ? m[0].el : null, info: JSON.stringify(info)};
}
