// jsFormHelpers are shared by the functions below: text cutting, where the
// form is, what a control is called, and which editor an element is.
  // @include snapshot:errorwords
const norm = s => String(s == null ? '' : s).replace(/\s+/g, ' ').trim();
// Cut a page-controlled string: look at no more than 4x the limit, so a
// megabyte of text costs nothing to cut.
const cut = (s, n) => { s = norm(String(s == null ? '' : s).slice(0, n * 4 + 16)); return s.length > n ? s.slice(0, n - 1) + '…' : s; };
const cutRaw = (s, n) => { s = String(s == null ? '' : s); return s.length > n ? s.slice(0, n - 1) + '…' : s; };
const visible = el => {
  if (!el.isConnected) return false;
  if (el.checkVisibility && !el.checkVisibility({visibilityProperty: true, contentVisibilityAuto: true})) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
};
const disabledOf = el => { try { return el.matches(':disabled'); } catch (e) { return !!el.disabled; } };
const usableOf = el => !disabledOf(el) && visible(el);
// The document and every open shadow root in it.
const allRoots = () => {
  const roots = [document];
  for (let i = 0; i < roots.length; i++)
    for (const el of roots[i].querySelectorAll('*')) if (el.shadowRoot) roots.push(el.shadowRoot);
  return roots;
};
const queryAll = (roots, sel) => { const out = []; for (const r of roots) out.push(...r.querySelectorAll(sel)); return out; };
// The element a read is limited to: root's first match, else the first
// form; null means the whole document. A root that matches nothing answers
// {missing: true}.
const scopeOf = (roots, root, whole) => {
  if (whole) return {el: null};
  const sel = root || 'form';
  for (const r of roots) {
    let el;
    try { el = r.querySelector(sel); } catch (e) { throw new Error('lyrad:badselector'); }
    if (el) return {el};
  }
  return root ? {missing: true} : {el: null};
};
// Inside scope: a descendant across shadow boundaries, or a control that
// names the form with its form= attribute.
const within = (scope, el) => {
  if (!scope) return true;
  if (scope.localName === 'form' && el.form === scope) return true;
  for (let n = el; n; n = n.parentNode || n.host) if (n === scope) return true;
  return false;
};
const describeScope = el => {
  if (!el) return 'page';
  let d = el.localName;
  if (el.id) d += '#' + cut(el.id, 60);
  else if (el.getAttribute('name')) d += '[name="' + cut(el.getAttribute('name'), 60) + '"]';
  return d;
};
const textOf = n => n ? cut(n.textContent, 120) : '';
// A label's own words: without the text of the controls inside it (a
// <select>'s options would otherwise become its label).
const labelText = l => {
  if (!l) return '';
  if (l.textContent.length < 20000 && l.querySelector('select,textarea,button,script,style')) {
    const copy = l.cloneNode(true);
    copy.querySelectorAll('select,textarea,button,script,style').forEach(n => n.remove());
    return textOf(copy);
  }
  return textOf(l);
};
// What a control is called: its <label>, aria-label(ledby), an enclosing
// label, placeholder or title, and last the text of its row.
const labelOf = el => {
  if (el.labels && el.labels.length) { const t = labelText(el.labels[0]); if (t) return t; }
  const aria = el.getAttribute('aria-label');
  if (aria && norm(aria)) return cut(aria, 120);
  const by = el.getAttribute('aria-labelledby');
  if (by) {
    const root = el.getRootNode();
    const t = by.split(/\s+/).slice(0, 4).map(id => textOf(root.getElementById ? root.getElementById(id) : null)).join(' ');
    if (norm(t)) return cut(t, 120);
  }
  const holder = el.closest('label');
  if (holder) { const t = labelText(holder); if (t) return t; }
  const hint = el.getAttribute('placeholder') || el.getAttribute('title');
  if (hint && norm(hint)) return cut(hint, 120);
  const row = el.closest('tr,li,dd,p');
  if (row && row.textContent.length < 2000) {
    const copy = row.cloneNode(true);
    copy.querySelectorAll('input,select,textarea,button,script,style').forEach(n => n.remove());
    return textOf(copy);
  }
  return '';
};
const buttonTypes = ['submit', 'button', 'reset', 'image'];
const isButtonInput = el => el.localName === 'input' && buttonTypes.includes(el.type);
const PUBLISH_WORDS = /draft|publish|live|unpublish|private|hidden/i;
const saysPublish = el => PUBLISH_WORDS.test(labelOf(el) + ' ' + (el.name || '') + ' ' + (el.id || ''));
// The other radios of el's group (its name, in its form).
const radioGroup = el => {
  const pool = el.form ? Array.from(el.form.elements) : Array.from(el.getRootNode().querySelectorAll('input[type=radio]'));
  return pool.filter(r => r !== el && r.localName === 'input' && r.type === 'radio' && r.name === el.name && r.form === el.form).slice(0, 50);
};
// A radio or checkbox that sets whether the item is public: its words
// say so, or, for a radio, another of its group's do (Private / Public).
const isPublishControl = el => el.localName === 'input' && (el.type === 'radio' || el.type === 'checkbox') &&
  (saysPublish(el) || (el.type === 'radio' && !!el.name && radioGroup(el).some(saysPublish)));
const optionLabel = el => (el.labels && el.labels.length ? labelText(el.labels[0]) : '') || labelText(el.closest('label'));
// The form a control sends: its form owner (form= included), else the
// form around it, across shadow roots (a web component's inner button has
// no form owner of its own).
const formOf = el => {
  if (el.form && el.form.localName === 'form') return el.form;
  for (let n = el; n; n = n.parentNode || n.host) if (n.localName === 'form') return n;
  return null;
};
// The text a control shows, as a person reads it: rendered text through
// open shadow roots and slots, without aria-hidden icons, svg or hidden
// parts; else its aria-label, title or value. read_form's submitText and
// save_draft's matching both use it, so one always finds the other.
const shownText = el => {
  let out = '', budget = 600;
  const walk = n => {
    if (budget <= 0) return;
    if (n.nodeType === 3) { out += n.data; budget -= n.data.length; return; }
    if (n.nodeType !== 1 && n.nodeType !== 11) return;
    if (n.nodeType === 1) {
      const tag = n.localName;
      if (tag === 'script' || tag === 'style' || tag === 'svg' || tag === 'template' || n.getAttribute('aria-hidden') === 'true') return;
      if (tag === 'img') { out += ' ' + (n.getAttribute('alt') || '') + ' '; return; }
      if (tag === 'slot') { for (const c of n.assignedNodes({flatten: true})) walk(c); return; }
      if (n !== el && getComputedStyle(n).display !== 'contents' && n.checkVisibility && !n.checkVisibility({visibilityProperty: true})) return;
      if (n.shadowRoot) { walk(n.shadowRoot); return; }
      out += ' ';
    }
    for (const c of n.childNodes) walk(c);
    out += ' ';
  };
  if (el.localName === 'input') out = el.value || (el.type === 'image' ? el.alt : '') || (el.type === 'submit' ? 'Submit' : '');
  else walk(el);
  return cut(norm(out) || el.getAttribute('aria-label') || el.getAttribute('title') || (el.localName === 'button' ? el.value : ''), 60);
};
// A control that sends a form: a submit button or input, or a web
// component that says type=submit (its own click handler sends).
const isSubmitControl = el => (el.localName === 'button' && el.type === 'submit') ||
  (el.localName === 'input' && (el.type === 'submit' || el.type === 'image')) ||
  (el.localName.includes('-') && String(el.getAttribute('type')).toLowerCase() === 'submit');
// The submit controls of the roots. A native submit in a shadow root with
// no form owner (a web component's inner button: shadow DOM keeps it from
// the form) is the component, which is what a person clicks and whose own
// handler sends.
const submitControls = roots => {
  const out = [];
  for (const el of queryAll(roots, 'button,input[type=submit],input[type=image],[type="submit" i]')) {
    if (!isSubmitControl(el)) continue;
    let c = el;
    if (!el.localName.includes('-') && !el.form) { const r = el.getRootNode(); if (r && r.host) c = r.host; }
    if (!out.includes(c)) out.push(c);
  }
  return out;
};
// A CSS selector that names the control, for the next call.
const selectorOf = el => {
  const q = s => '"' + String(s).replace(/["\\]/g, '\\$&') + '"';
  if (el.id && el.id.length <= 80) return '#' + CSS.escape(el.id);
  let s = el.localName;
  if (el.name && el.name.length <= 80) s += '[name=' + q(el.name) + ']';
  if ((el.type === 'radio' || el.type === 'checkbox') && el.value.length <= 80) s += '[value=' + q(el.value) + ']';
  if (s !== el.localName) return s;
  // Neither id nor name: its first class, under its parent's id.
  const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/)[0] : '';
  if (cls && cls.length <= 60) s += '.' + CSS.escape(cls);
  const p = el.parentElement;
  if (p && p.id && p.id.length <= 80) s = '#' + CSS.escape(p.id) + ' > ' + s;
  return s;
};
// Editors. An iframe editor is the iframe; an inline one is its editing
// host (the outermost contenteditable).
const editorKind = el => {
  const cls = typeof el.className === 'string' ? el.className : '';
  if (el.localName === 'iframe') {
    if (/\bcke_wysiwyg_frame\b/.test(cls) || el.closest('.cke')) return 'ckeditor';
    if (/tox-edit-area__iframe/.test(cls) || /_ifr$/.test(el.id) || el.closest('.tox-tinymce,.mce-tinymce')) return 'tinymce';
    return 'iframe';
  }
  if (/\bck-editor__editable\b/.test(cls)) return 'ckeditor5';
  if (/\bql-editor\b/.test(cls)) return 'quill';
  if (/\bProseMirror\b/.test(cls)) return 'prosemirror';
  if (el.closest('.mce-content-body,.tox-tinymce')) return 'tinymce';
  return 'contenteditable';
};
// The document an iframe editor edits, when this world may read it.
const frameDoc = el => { try { const d = el.contentDocument; return d && d.body ? d : null; } catch (e) { return null; } };
const editableDoc = d => d && d.body && (d.designMode === 'on' || d.body.isContentEditable);
const isEditorFrame = el => {
  if (el.localName !== 'iframe') return false;
  if (editorKind(el) !== 'iframe') return true;
  return editableDoc(frameDoc(el));
};
const editorsIn = (roots, scope) => {
  const out = [];
  for (const el of queryAll(roots, 'iframe')) if (within(scope, el) && isEditorFrame(el)) out.push(el);
  for (const el of queryAll(roots, '[contenteditable],.ql-editor,.ProseMirror')) {
    if (!el.isContentEditable || !within(scope, el)) continue;
    if (el.parentElement && el.parentElement.isContentEditable) continue;
    out.push(el);
  }
  // A document that is itself an editor (an iframe editor's body seen
  // from inside its own frame).
  if (!out.length && editableDoc(document) && !scope) out.push(document.body);
  return out;
};
// The surface an editor writes to: an iframe's body, or the element.
const surfaceOf = el => el.localName === 'iframe' ? (frameDoc(el) || {}).body || null : el;
// The field the form posts for an editor: CKEditor 4 keeps it hidden
// beside .cke (id cke_NAME), TinyMCE beside NAME_ifr, CKEditor 5 before
// .ck-editor.
const postedFieldOf = el => {
  const doc = el.ownerDocument, root = el.getRootNode();
  const byName = n => n && ((root.getElementById && root.getElementById(n)) || doc.getElementById(n) ||
    root.querySelector('textarea[name="' + CSS.escape(n) + '"],input[name="' + CSS.escape(n) + '"]'));
  const pick = f => f && (f.localName === 'textarea' || f.localName === 'input') ? f : null;
  const cke = el.closest('.cke');
  if (cke && /^cke_/.test(cke.id)) { const f = pick(byName(cke.id.slice(4))); if (f) return f; }
  if (cke && cke.previousElementSibling) { const f = pick(cke.previousElementSibling); if (f) return f; }
  if (el.localName === 'iframe' && /_ifr$/.test(el.id)) { const f = pick(byName(el.id.slice(0, -4))); if (f) return f; }
  const tiny = el.closest('.tox-tinymce,.mce-tinymce');
  if (tiny && tiny.previousElementSibling) { const f = pick(tiny.previousElementSibling); if (f) return f; }
  const ck5 = el.closest('.ck-editor');
  if (ck5 && ck5.previousElementSibling) { const f = pick(ck5.previousElementSibling); if (f) return f; }
  return null;
};
const editorOf = (el, n) => {
  const kind = el === document.body ? 'iframe' : editorKind(el);
  const surface = surfaceOf(el);
  const text = surface ? String(surface.innerText || '') : '';
  const e = {kind, tag: el.localName, id: cut(el.id, 80), selector: el === document.body ? 'body' : selectorOf(el),
    usable: el === document.body ? true : visible(el), chars: text.length, content: cut(text, n)};
  if (!surface) e.unreadable = true;
  if (el !== document.body) {
    const f = postedFieldOf(el);
    if (f) { e.field = cut(f.name || f.id, 80); e.fieldChars = f.value.length; }
  }
  return e;
};
