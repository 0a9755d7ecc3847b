function() {
  // @include helpers.js covered.js
  const el = this;
  if (!el.isConnected) return {gone: true};
  // A frame element: the pointer would land on what the frame shows, in
  // another document (another site's, maybe), not on the element.
  if (/^(IFRAME|FRAME|OBJECT|EMBED)$/.test(el.tagName) && el.contentWindow) return {frameElement: describe(el)};
  const vw = document.documentElement.clientWidth || innerWidth, vh = document.documentElement.clientHeight || innerHeight;
  const box = () => [...el.getClientRects()].find(r => r.width > 0 && r.height > 0);
  const up = n => n.assignedSlot || (n.parentNode instanceof ShadowRoot ? n.parentNode.host : n.parentElement);
  // What shows of the page around el: the viewport, cut by each ancestor
  // that clips its overflow, up to a fixed one (which the rest do not clip).
  const clip = () => {
    let L = 0, T = 0, R = vw, B = vh;
    if (getComputedStyle(el).position === 'fixed') return {L, T, R, B};
    for (let n = up(el); n && n !== document.documentElement && n !== document.body; n = up(n)) {
      const cs = getComputedStyle(n);
      if (cs.display === 'contents' || cs.display === 'inline') continue;
      if (cs.overflowX !== 'visible' || cs.overflowY !== 'visible') {
        const r = n.getBoundingClientRect(), l = r.left + n.clientLeft, t = r.top + n.clientTop;
        if (cs.overflowX !== 'visible') { L = Math.max(L, l); R = Math.min(R, l + n.clientWidth); }
        if (cs.overflowY !== 'visible') { T = Math.max(T, t); B = Math.min(B, t + n.clientHeight); }
      }
      if (cs.position === 'fixed') break;
    }
    return {L, T, R, B};
  };
  const shows = (r, c) => r.left >= c.L && r.top >= c.T && r.right <= c.R && r.bottom <= c.B;
  const centre = () => el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
  // The point: the middle of what shows of r, else of what is in the viewport.
  const aim = r => {
    let c = clip();
    let x0 = Math.max(r.left, c.L), x1 = Math.min(r.right, c.R), y0 = Math.max(r.top, c.T), y1 = Math.min(r.bottom, c.B);
    if (x1 <= x0 || y1 <= y0) {
      x0 = Math.max(r.left, 0); x1 = Math.min(r.right, vw); y0 = Math.max(r.top, 0); y1 = Math.min(r.bottom, vh);
    }
    if (x1 <= x0 || y1 <= y0) return null;
    return {x: (x0 + x1) / 2, y: (y0 + y1) / 2};
  };
  let r = box(), scrolled = false;
  if (!r || !shows(r, clip())) {
    centre();
    r = box();
    scrolled = true;
  }
  if (!r) return {hidden: true};
  let p = aim(r);
  let hit = p && coveredBy(el, p.x, p.y);
  if (!scrolled && (!p || hit)) {
    // Covered where it stands (a sticky bar, the panel's edge): from the
    // middle of its panels it may not be.
    centre();
    r = box();
    scrolled = true;
    if (!r) return {hidden: true};
    p = aim(r);
    hit = p && coveredBy(el, p.x, p.y);
  }
  if (!p) return {outside: true};
  const l = el.getBoundingClientRect();
  // An item: in a list, a menu, a tree or a grid by its markup, or one of
  // three or more like siblings (a menu of divs), itself or up to two
  // levels up.
  const like = n => { const p = n && n.parentElement; return !!p && [...p.children].filter(c => c.localName === n.localName && c.className === n.className).length >= 3; };
  const inList = !!el.closest('li, option, [role=option], [role=menuitem], [role=menuitemradio], [role=menuitemcheckbox], [role=treeitem], [role=row], [role=listbox], [role=menu], [role=tree], [role=grid]') ||
    like(el) || like(el.parentElement) || like(el.parentElement && el.parentElement.parentElement);
  return {x: p.x, y: p.y, left: l.left, top: l.top, scrolled, covered: hit ? coverName(hit) : '', coverPage: !!hit && isPage(hit), coverFrame: hit ? frameOf(hit) : '', inList};
}
