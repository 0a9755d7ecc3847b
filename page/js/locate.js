function(kind, sel) {
  // @include helpers.js find.js
  const found = find(kind, sel);
  if (kind !== 'text' || found.length < 2) return {count: found.length, el: found.find(visible) || found[0] || null, why: ''};
  const vw = document.documentElement.clientWidth || innerWidth, vh = document.documentElement.clientHeight || innerHeight;
  const uncovered = el => {
    const r = [...el.getClientRects()].find(r => r.width > 0 && r.height > 0);
    if (!r) return 0;
    const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
    if (x < 0 || y < 0 || x >= vw || y >= vh) return 1; // out of view: not known
    return inside(deepHit(x, y), el) ? 2 : 0;
  };
  const actionable = el => el.matches(controlSel) || el.hasAttribute('onclick') || el.hasAttribute('tabindex') ||
    el.isContentEditable || getComputedStyle(el).cursor === 'pointer';
  // The first 100 are weighed (a phrase all over a page costs no more).
  const scored = found.slice(0, 100).map((el, i) => { const v = visible(el); return {el, i, v, u: v ? uncovered(el) : 0, a: v && actionable(el)}; });
  scored.sort((p, q) => (q.v - p.v) || (q.u - p.u) || (q.a - p.a) || (p.i - q.i));
  const best = scored[0], next = scored[1];
  let why = '';
  if (!best.v) why = '';
  else if (best.u > next.u) why = next.v ? 'the visible one not covered by something else' : 'the visible one';
  else if (best.a && !next.a) why = 'the visible control (the others are not clickable)';
  else if (!next.v) why = 'the visible one';
  return {count: found.length, el: best.el, why};
}
