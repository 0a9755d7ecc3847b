function() {
  // @include form_helpers.js
  const roots = allRoots();
  const scope = scopeOf(roots, '', false).el;
  const out = [];
  for (const el of queryAll(roots, 'input[type=radio],input[type=checkbox]')) {
    if (!within(scope, el) || !el.checked || !isPublishControl(el) || out.length >= 20) continue;
    out.push({name: cut(el.name, 80), value: cut(el.value, 80), label: cut(optionLabel(el), 60), id: cut(el.id, 80)});
  }
  return out;
}
