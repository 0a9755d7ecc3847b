function(root, whole) {
  // @include form_helpers.js
  const roots = allRoots();
  const sc = scopeOf(roots, root, whole);
  const inside = !sc.missing && within(sc.el, this);
  return {inside, editorRead: inside && isEditorFrame(this) && !!frameDoc(this), owner: selectorOf(this)};
}
