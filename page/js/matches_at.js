function(kind, sel, x, y) {
  // @include helpers.js find.js
  const hit = deepHit(x, y);
  if (!hit) return false;
  return find(kind, sel).some(f => inside(hit, f));
}
