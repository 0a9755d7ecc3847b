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
`

// JSLocate finds what a selector names in this frame's document, open
// shadow roots included, and returns {count, el}: how many elements matched
// and the one to act on, the first visible match in document order (else
// the first). kind is css, text or xpath.
//
// text= follows Playwright: text=Save matches, case-insensitively, any
// element whose text contains "Save"; text="Save" needs the whole
// (whitespace-normalised) text to be exactly that; text=/sa.e/i is a
// regular expression. The innermost element holding the text matches, lifted
// to the control around it (a span inside a button names the button).
const JSLocate = `function(kind, sel) {` + jsHelpers + `
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
    const control = 'a[href],button,input,select,textarea,summary,label,[role=button],[role=link],[role=menuitem],[role=tab],[role=option],[role=checkbox],[role=radio],[role=switch],[role=treeitem]';
    found = [...new Set(found.map(el => el.closest(control) || el))];
  }
  const el = found.find(visible) || found[0] || null;
  return {count: found.length, el};
}`

// JSState reports whether the element can be acted on now, and what it is.
const JSState = `function() {` + jsHelpers + `
  const el = this;
  const s = {connected: el.isConnected, visible: visible(el), enabled: true, textField: false, readOnly: false,
    tag: el.localName, role: roleOf(el), name: nameOf(el)};
  // Disabled natively (a fieldset included) or by aria-disabled.
  s.enabled = !(el.matches(':disabled') || el.closest('[aria-disabled="true"]'));
  const t = el.localName;
  const textTypes = ['text', 'search', 'email', 'url', 'tel', 'password', 'number'];
  s.textField = t === 'textarea' || (t === 'input' && textTypes.includes(el.type)) || el.isContentEditable;
  s.readOnly = (t === 'textarea' || t === 'input') ? el.readOnly : el.getAttribute('aria-readonly') === 'true';
  return s;
}`

// JSPrepare brings the element into view (only when it is not fully in view
// already) and picks the point to act on: the centre of its first box,
// clipped to the viewport. It then asks the page what is at that point, so
// a pointer never lands on something covering the element. Coordinates are
// this frame's viewport's.
const JSPrepare = `function() {` + jsHelpers + jsCovered + `
  const el = this;
  if (!el.isConnected) return {gone: true};
  const vw = document.documentElement.clientWidth || innerWidth, vh = document.documentElement.clientHeight || innerHeight;
  const box = () => [...el.getClientRects()].find(r => r.width > 0 && r.height > 0);
  let r = box(), scrolled = false;
  if (!r || r.left < 0 || r.top < 0 || r.right > vw || r.bottom > vh) {
    el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
    r = box();
    scrolled = true;
  }
  if (!r) return {hidden: true};
  const x0 = Math.max(r.left, 0), x1 = Math.min(r.right, vw), y0 = Math.max(r.top, 0), y1 = Math.min(r.bottom, vh);
  if (x1 <= x0 || y1 <= y0) return {outside: true};
  const x = (x0 + x1) / 2, y = (y0 + y1) / 2;
  const l = el.getBoundingClientRect();
  return {x, y, left: l.left, top: l.top, scrolled, covered: coveredBy(el, x, y)};
}`

// JSHit answers, after the pointer moved, whether the element is still
// there and still the one at the point (hover effects can cover it, or
// remove it).
const JSHit = `function(x, y) {` + jsHelpers + jsCovered + `
  if (!this.isConnected) return {gone: true};
  return {covered: coveredBy(this, x, y)};
}`

// jsCovered is appended to jsHelpers for the two functions above: what
// covers el at (x, y), or "" when el (or something inside it, shadow trees
// and slots included) is what the point hits.
const jsCovered = `
const coveredBy = (el, x, y) => {
  let hit = document.elementFromPoint(x, y);
  // elementFromPoint stops at a shadow host; look inside open roots.
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  if (!hit) return 'nothing (the point is outside the page)';
  for (let n = hit; n; n = n.assignedSlot || n.parentNode || n.host) if (n === el) return '';
  // A label clicks its control; a control clicked through its label is
  // not covered.
  if (hit.closest && hit.closest('label') && hit.closest('label').control === el) return '';
  return describe(hit);
};
`

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
  if (this.selectedIndex !== i) {
    this.selectedIndex = i;
    this.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
    this.dispatchEvent(new Event('change', {bubbles: true}));
  }
  return {value: o.value, label: o.label.trim(), index: i};
}`
