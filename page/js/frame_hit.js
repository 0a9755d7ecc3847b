function(x, y, top, tx, ty) {
  // @include helpers.js covered.js
  const el = this;
  if (!el.isConnected) return {gone: true};
  const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
  const wx = x + r.left + el.clientLeft + (parseFloat(cs.paddingLeft) || 0);
  const wy = y + r.top + el.clientTop + (parseFloat(cs.paddingTop) || 0);
  const hx = top ? tx : wx, hy = top ? ty : wy;
  const hit = frameHit(el, hx, hy) || document.documentElement;
  const base = {x: wx, y: wy, hx, hy, origin: location.origin};
  if (hit === el) return base;
  return {...base, covered: coverName(hit), coverPage: isPage(hit), frame: frameOf(hit)};
}
