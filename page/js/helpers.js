// jsHelpers are the definitions the functions below share: text
// normalisation, visibility, and what an element is (tag, role, name) as a
// reply shows it. Input values are never read for a name (a password field
// must not leak through "clicked").
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
