package page

// The page-side JavaScript of the acting tools. All of it runs in lyrad's
// isolated world (see world.go): it shares the DOM with the page, not its
// globals, so nothing here is visible to the page or can be hooked by it.
// Each function is small and stands alone; helpers are repeated in the ones
// that need them rather than installed as globals.

// jsHelpers are the definitions the functions below share: text
// normalisation, visibility, and what an element is (tag, role, name) as a
// reply shows it. Input values are never read for a name (a password field
// must not leak through "clicked").
const jsHelpers = `
const norm = s => (s || '').replace(/\s+/g, ' ').trim();
// Visible: laid out with a non-empty box, and not hidden by display,
// visibility or content-visibility (opacity 0 still counts as visible).
const visible = el => {
  if (!el.isConnected) return false;
  if (el.checkVisibility && !el.checkVisibility({visibilityProperty: true, contentVisibilityAuto: true})) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
};
const roleOf = el => {
  const r = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
  if (r) return r;
  const t = el.localName;
  if (t === 'a' || t === 'area') return el.hasAttribute('href') ? 'link' : 'generic';
  if (t === 'button' || t === 'summary') return 'button';
  if (t === 'select') return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
  if (t === 'textarea') return 'textbox';
  if (t === 'input') return ({checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox',
    button: 'button', submit: 'button', reset: 'button', image: 'button', hidden: 'none'})[el.type] || 'textbox';
  if (/^h[1-6]$/.test(t)) return 'heading';
  return ({img: 'img', option: 'option', li: 'listitem', nav: 'navigation', dialog: 'dialog', label: 'label'})[t] ||
    (el.isContentEditable ? 'textbox' : 'generic');
};
const nameOf = el => {
  const cut = s => { s = norm(s); return s.length > 80 ? s.slice(0, 79) + '…' : s; };
  const aria = el.getAttribute('aria-label');
  if (aria && norm(aria)) return cut(aria);
  const by = el.getAttribute('aria-labelledby');
  if (by) {
    const t = by.split(/\s+/).map(id => { const n = el.getRootNode().getElementById?.(id); return n ? n.textContent : ''; }).join(' ');
    if (norm(t)) return cut(t);
  }
  if (el.localName === 'input' && ['button', 'submit', 'reset'].includes(el.type)) return cut(el.value);
  if (el.labels && el.labels.length) return cut(el.labels[0].innerText);
  if (el.localName === 'img') return cut(el.alt);
  const text = el.localName === 'input' || el.localName === 'textarea' || el.localName === 'select' ? '' : el.innerText;
  return cut(text || el.getAttribute('placeholder') || el.getAttribute('title') || el.getAttribute('alt') || '');
};
// A short, recognisable description of an element for a hint:
// button#save.primary "Save".
const describe = el => {
  let d = el.localName;
  if (el.id) d += '#' + el.id;
  const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean).slice(0, 2) : [];
  if (cls.length) d += '.' + cls.join('.');
  const n = nameOf(el);
  return n ? d + ' "' + n + '"' : d;
};
// The element at (x, y) of this frame's viewport, inside open shadow roots
// (and the roots rootOf gives). Text slotted into a host hits the host
// itself (the text's parent): then what holds it at the point is the
// topmost element of the host's shadow tree there.
const deepHit = (x, y, rootOf = h => h.shadowRoot) => {
  let hit = document.elementFromPoint(x, y);
  for (let root; hit && (root = rootOf(hit)); ) {
    let inner = root.elementFromPoint(x, y);
    if (!inner || inner === hit) inner = root.elementsFromPoint(x, y).find(e => e !== hit && e.getRootNode() === root);
    if (!inner) break;
    hit = inner;
  }
  return hit;
};
// inside: whether n is el or lies inside it, through shadow roots and slots.
const inside = (n, el) => { for (; n; n = n.assignedSlot || n.parentNode || n.host) if (n === el) return true; return false; };
`

// jsFind is appended to jsHelpers: find(kind, sel) lists what a selector
// names in this frame's document, open shadow roots included. kind is css,
// text or xpath.
//
// text= follows Playwright: text=Save matches, case-insensitively, any
// element whose text contains "Save"; text="Save" needs the whole
// (whitespace-normalised) text to be exactly that; text=/sa.e/i is a
// regular expression. The innermost element holding the text matches, lifted
// to the control around it (a span inside a button names the button).
const jsFind = `
const controlSel = 'a[href],button,input,select,textarea,summary,label,[role=button],[role=link],[role=menuitem],[role=tab],[role=option],[role=checkbox],[role=radio],[role=switch],[role=treeitem]';
const find = (kind, sel) => {
  // Every root to search: the document and each open shadow root in it.
  const roots = [document];
  for (let i = 0; i < roots.length; i++)
    for (const el of roots[i].querySelectorAll('*')) if (el.shadowRoot) roots.push(el.shadowRoot);
  let found = [];
  if (kind === 'css') {
    for (const r of roots) found.push(...r.querySelectorAll(sel));
  } else if (kind === 'xpath') {
    const res = document.evaluate(sel, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    for (let i = 0; i < res.snapshotLength; i++) if (res.snapshotItem(i).nodeType === 1) found.push(res.snapshotItem(i));
  } else {
    // match: the element's whole text names it; within: its text holds
    // a match somewhere, so the search goes down into it.
    let match, within;
    const re = /^\/(.*)\/([a-z]*)$/s.exec(sel);
    if (re) {
      const rx = new RegExp(re[1], re[2].replace('g', ''));
      match = t => rx.test(t);
      within = t => t !== '';
    } else if (sel.length > 1 && sel[0] === '"' && sel[sel.length - 1] === '"') {
      const want = norm(sel.slice(1, -1));
      match = t => t === want;
      within = t => t.includes(want);
    } else {
      const want = norm(sel).toLowerCase();
      match = within = t => t.toLowerCase().includes(want);
    }
    const skip = new Set(['script', 'style', 'noscript', 'template', 'head']);
    const textOf = el => norm(el.textContent);
    // Depth first: an element matches when its text does and no element
    // inside it matches on its own (the innermost holder of the text).
    const visit = el => {
      let inner = false;
      for (const c of el.children) if (!skip.has(c.localName) && within(textOf(c)) && visit(c)) inner = true;
      if (!inner && match(textOf(el))) { found.push(el); return true; }
      return inner;
    };
    for (const r of roots) {
      const tops = r === document ? (document.body ? [document.body] : []) : [...r.children];
      for (const t of tops) if (!skip.has(t.localName) && within(textOf(t))) visit(t);
      for (const b of r.querySelectorAll('input[type=button],input[type=submit],input[type=reset]')) if (match(norm(b.value))) found.push(b);
    }
    found = [...new Set(found.map(el => el.closest(controlSel) || el))];
  }
  return found;
};
`

// JSLocate finds what a selector names (jsFind) and returns {count, el,
// why}: how many elements matched and the one to act on. For css and
// xpath that is the first visible match in document order (else the
// first). For text=, where a phrase often sits in prose as well as on the
// control, it is the match a person would act on: visible first, then not
// covered by something else at its centre, then a control (a role, a
// click handler, a pointer cursor, a tabindex), then in document order;
// why says what set it apart.
const JSLocate = `function(kind, sel) {` + jsHelpers + jsFind + `
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
}`

// JSMatchesAt answers whether the element at (x, y) of this frame's
// viewport is, or lies inside, one of the elements a selector names: a
// cover that is itself a match.
const JSMatchesAt = `function(kind, sel, x, y) {` + jsHelpers + jsFind + `
  const hit = deepHit(x, y);
  if (!hit) return false;
  return find(kind, sel).some(f => inside(hit, f));
}`

// JSState reports whether the element can be acted on now, and what it is.
const JSState = `function() {` + jsHelpers + `
  const el = this;
  const s = {connected: el.isConnected, visible: visible(el), enabled: true, textField: false, valueType: '', readOnly: false,
    tag: el.localName, role: roleOf(el), name: nameOf(el)};
  // Disabled natively (a fieldset included) or by aria-disabled.
  s.enabled = !(el.matches(':disabled') || el.closest('[aria-disabled="true"]'));
  const t = el.localName;
  const textTypes = ['text', 'search', 'email', 'url', 'tel', 'password', 'number'];
  s.textField = t === 'textarea' || (t === 'input' && textTypes.includes(el.type)) || el.isContentEditable;
  // Inputs whose value is set whole, in its ISO form (JSSetValue).
  s.valueType = t === 'input' && ['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range'].includes(el.type) ? el.type : '';
  s.readOnly = (t === 'textarea' || t === 'input') ? el.readOnly : el.getAttribute('aria-readonly') === 'true';
  return s;
}`

// JSPrepare brings the element into view and picks the point to act on:
// the centre of its first box, clipped to what shows of it, in the
// viewport and inside every panel around it that clips (overflow other
// than visible). When it does not show whole there, or something else is
// at that point, it is scrolled to the middle of every scrolling ancestor
// (scrollIntoView scrolls them all, the window last) and measured again.
// It then asks the page what is at that point, so a pointer never lands
// on something covering the element, and says whether the element is an
// item of a list, a menu, a tree or a grid (or inside one, or one of like
// siblings). Coordinates
// are this frame's viewport's.
const JSPrepare = `function() {` + jsHelpers + jsCovered + `
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
}`

// JSHit answers, after the pointer moved, whether the element is still
// there and still the one at the point (hover effects can cover it, or
// remove it). It runs as a task after the pointer's last move was handled
// (a move is answered once the frame that handled it ran, its
// requestAnimationFrame callbacks included), so what the page did on the
// pointer's arrival is seen.
const JSHit = `function(x, y) {` + jsHelpers + jsCovered + `
  if (!this.isConnected) return {gone: true};
  const hit = coveredBy(this, x, y);
  return {covered: hit ? coverName(hit) : '', coverPage: !!hit && isPage(hit), coverFrame: hit ? frameOf(hit) : ''};
}`

// jsCovered is appended to jsHelpers for the two functions above:
// coveredBy(el, x, y) is what covers el at (x, y), null when el (or
// something inside it, shadow trees and slots included) is what the point
// hits; coverName says what that is as a person would point at it: the
// control it belongs to, by role and name, or the nearest element that has
// an id, a class or text; isPage, that the point reaches the page itself
// (nothing is drawn there: the element is clipped, or lets the pointer
// through).
const jsCovered = `
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
`

// JSFrameHit runs on a frame's element (an iframe, frame, object or
// embed) in the document around it, for the point (x, y) in the frame's
// viewport: it answers where that point lies in this document's viewport
// (the frame's content box is where its viewport starts) and what this
// document has there, through open shadow roots and the closed ones the
// frame element lies in. With top set, the point tested is (tx, ty)
// instead, the point in the tab's viewport where input is dispatched.
// Nothing is covered when the frame element itself is hit; otherwise
// covered names what is, and frame is the origin a frame hit shows ("?"
// when it is not this document's to read).
const JSFrameHit = `function(x, y, top, tx, ty) {` + jsHelpers + jsCovered + `
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
}`

// JSFrameHitAt is the element JSFrameHit found at (hx, hy), as an object
// (whose frame CDP can name).
const JSFrameHitAt = `function(hx, hy) {` + jsHelpers + jsCovered + `
  return frameHit(this, hx, hy);
}`

// JSFocusText focuses a text field and selects what it holds, so that the
// text typed next replaces it. It reports whether focus arrived.
const JSFocusText = `function() {
  const el = this;
  el.focus(); // scrolls it into view when it is not
  if (el.localName === 'input' || el.localName === 'textarea') {
    try { el.select(); } catch (e) { el.setSelectionRange?.(0, el.value.length); }
  } else {
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  // The deepest active element: focus inside a shadow root stops at its host.
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a === el || el.contains(a);
}`

// JSSetValue gives an input whose value is set whole (date, time,
// datetime-local, month, week, color, range) the value v, in the ISO form
// the input holds, the way a person's choice in its picker does: focus,
// the value, then input and change. It answers the value the input holds
// then and whether it took v as given (the browser drops a value it cannot
// parse, and a range moves to its nearest step within min and max).
const JSSetValue = `function(v) {
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
}`

// JSFieldValue answers what a field holds now, for an acting call's reply:
// a control's value (cut to 200 characters), a checkbox's or radio's
// checked state, for a password only whether it is filled. A label stands
// for its control. field is false for an element that is no field.
const JSFieldValue = `function() {
  let el = this;
  if (el.localName === 'label' && el.control) el = el.control;
  if (!el.isConnected) return {field: false};
  const cut = s => s.length > 200 ? s.slice(0, 199) + '…' : s;
  const t = el.localName;
  if (t === 'input' && (el.type === 'checkbox' || el.type === 'radio')) return {field: true, checkable: true, checked: el.checked};
  const role = el.getAttribute('role');
  if (['checkbox', 'switch', 'radio', 'menuitemcheckbox', 'menuitemradio'].includes(role))
    return {field: true, checkable: true, checked: el.getAttribute('aria-checked') === 'true'};
  if (t === 'input' && el.type === 'password') return {field: true, password: true, filled: el.value !== ''};
  if (t === 'input' || t === 'textarea') return {field: true, value: cut(el.value)};
  if (t === 'select') return {field: true, value: cut(el.multiple ? [...el.selectedOptions].map(o => o.value).join(', ') : el.value)};
  if (el.isContentEditable) return {field: true, value: cut((el.innerText || '').replace(/\n+$/, ''))};
  return {field: false};
}`

// JSWaitChange resolves on the next change to this document (nodes,
// attributes, text) or after ms, whichever is first: a control that appears
// or gets enabled wakes the caller at once; the time limit covers what no
// mutation announces (a style sheet, an animation).
const JSWaitChange = `function(ms) {
  return new Promise(resolve => {
    const o = new MutationObserver(() => { o.disconnect(); resolve(true); });
    o.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
    setTimeout(() => { o.disconnect(); resolve(false); }, ms);
  });
}`

// JSDrain resolves after the tasks the page queued so far (a click
// handler's setTimeout(0), a form submission) have run: the events they
// raise then reach lyrad before this call's answer does. It answers
// whether the window is closing (a handler called window.close() on a
// window a script opened), at once, as a closing page may run no more
// tasks.
const JSDrain = `function() {
  if (window.closed) return true;
  return new Promise(resolve => setTimeout(() => resolve(window.closed), 0));
}`

// JSScrollState reports the window's scroll position once it has settled:
// read each frame until it has not moved for three frames (a wheel scroll
// is animated), at most ms. With wantMove, a position still at fromY is not
// settled for the first 300 ms: a wheel turn takes a frame or two to start
// the scroll.
const JSScrollState = `function(ms, wantMove, fromY) {
  const se = document.scrollingElement || document.documentElement;
  const state = () => ({y: Math.round(scrollY), height: se.scrollHeight, view: innerHeight,
    atBottom: Math.ceil(scrollY + innerHeight) >= se.scrollHeight - 1});
  // A frame, or 50 ms where frames are throttled (a tab in the background).
  const frame = () => new Promise(r => { requestAnimationFrame(r); setTimeout(r, 50); });
  return (async () => {
    const start = performance.now();
    let last = scrollY, still = 0;
    while (still < 3 && performance.now() - start < ms) {
      await frame();
      if (wantMove && scrollY === fromY && performance.now() - start < 300) continue;
      if (scrollY === last) still++; else { still = 0; last = scrollY; }
    }
    return state();
  })();
}`

// JSScrollTo jumps to the top or the bottom of the document.
const JSScrollTo = `function(where) {
  const se = document.scrollingElement || document.documentElement;
  scrollTo({left: scrollX, top: where === 'top' ? 0 : se.scrollHeight, behavior: 'instant'});
}`

// JSScrollIntoView brings an element to the middle of the viewport.
const JSScrollIntoView = `function() {
  this.scrollIntoView({block: 'center', inline: 'nearest', behavior: 'instant'});
}`

// JSScrollPanels brings an element to the middle of the viewport and of
// every panel around it that scrolls, and answers the innermost panel that
// moved (the one a person would say was scrolled), described as hints
// describe elements, with where it now stands; null when no panel moved.
const JSScrollPanels = `function() {` + jsHelpers + `
  const up = n => n.assignedSlot || (n.parentNode instanceof ShadowRoot ? n.parentNode.host : n.parentElement);
  const panels = [];
  for (let n = up(this); n && n !== document.documentElement && n !== document.body; n = up(n)) {
    if (n.scrollHeight > n.clientHeight + 1 || n.scrollWidth > n.clientWidth + 1) {
      const cs = getComputedStyle(n);
      if (/(auto|scroll|hidden|overlay)/.test(cs.overflowY + ' ' + cs.overflowX)) panels.push({n, top: n.scrollTop, left: n.scrollLeft});
    }
  }
  this.scrollIntoView({block: 'center', inline: 'nearest', behavior: 'instant'});
  const moved = panels.find(p => p.n.scrollTop !== p.top || p.n.scrollLeft !== p.left);
  if (!moved) return null;
  const n = moved.n;
  return {panel: describe(n), y: Math.round(n.scrollTop), from: Math.round(moved.top), height: n.scrollHeight, view: n.clientHeight,
    atBottom: Math.ceil(n.scrollTop + n.clientHeight) >= n.scrollHeight - 1};
}`

// JSFrames resolves after the page has drawn two frames (or 100 ms where
// frames are throttled): the browser routes pointer events to an
// out-of-process frame by where the last drawn frame put it, so after a
// scroll the input waits for the drawing.
const JSFrames = `function() {
  return new Promise(r => { requestAnimationFrame(() => requestAnimationFrame(r)); setTimeout(r, 100); });
}`

// JSFocusedFrame answers the element holding the focus when it is a frame
// (the focus is inside that frame's document), through open shadow roots;
// null otherwise.
const JSFocusedFrame = `function() {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a && /^(IFRAME|FRAME|OBJECT|EMBED)$/.test(a.tagName) ? a : null;
}`

// JSSelect chooses an option of the <select> `this` and fires input and
// change the way a person's choice does (a page listens for those). It
// answers what was chosen, or why nothing was.
const JSSelect = `function(by, want, index) {
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
}`
