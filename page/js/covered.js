// jsCovered is appended to jsHelpers for the two functions above:
// coveredBy(el, x, y) is what covers el at (x, y), null when el (or
// something inside it, shadow trees and slots included) is what the point
// hits; coverName says what that is as a person would point at it: the
// control it belongs to, by role and name, or the nearest element that has
// an id, a class or text; isPage, that the point reaches the page itself
// (nothing is drawn there: the element is clipped, or lets the pointer
// through).
const coveredBy = (el, x, y) => {
  const hit = deepHit(x, y);
  if (!hit) return document.documentElement;
  if (inside(hit, el)) return null;
  // A label clicks its control; a control clicked through its label is
  // not covered.
  if (hit.closest && hit.closest('label') && hit.closest('label').control === el) return null;
  return hit;
};
const isPage = n => n === document.documentElement || n === document.body;
// frameOf is the origin a frame element shows, "?" when this document
// cannot read it (another origin's), "" for any other element.
const frameOf = hit => {
  if (!/^(IFRAME|FRAME|OBJECT|EMBED)$/.test(hit.tagName)) return '';
  try { return hit.contentWindow.location.origin || '?'; } catch (e) { return '?'; }
};
// frameHit is the element at (x, y) of this document's viewport, inside
// open shadow roots and the closed ones el (a frame element) lies in.
const frameHit = (el, x, y) => {
  const closed = new Map();
  for (let r = el.getRootNode(); r instanceof ShadowRoot; r = r.host.getRootNode()) closed.set(r.host, r);
  return deepHit(x, y, h => h.shadowRoot || closed.get(h));
};
const coverName = hit => {
  if (isPage(hit)) return 'nothing drawn at that point (the page itself, ' + hit.localName + ')';
  let c = hit;
  for (let n = hit, i = 0; n && n.nodeType === 1 && !isPage(n) && i < 6; n = n.parentElement, i++) {
    const role = roleOf(n);
    if (!['generic', 'none', 'presentation', 'img', 'listitem', 'label'].includes(role)) { c = n; break; }
  }
  if (c === hit) {
    for (let n = hit; n && n.nodeType === 1 && !isPage(n); n = n.parentElement)
      if (n.id || (typeof n.className === 'string' && n.className.trim()) || norm(n.innerText)) { c = n; break; }
  }
  const role = roleOf(c), d = describe(c);
  return role === 'generic' || role === c.localName || (role === 'button' && c.localName === 'button') ? d : role + ' ' + d;
};
