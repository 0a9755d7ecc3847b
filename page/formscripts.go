package page

import "github.com/lyrad/lyrad/snapshot"

// The page-side JavaScript of the form tools (read_form, read_draft,
// set_editor, save_draft, publish). Like scripts.go, all of it runs in
// lyrad's isolated world: it shares the DOM with the page, never its
// globals. That is why a CKEditor instance is recognised by the markup it
// builds (.cke, iframe.cke_wysiwyg_frame) and synced by doing what its
// updateElement() does (copy the editing body's HTML into the textarea the
// form posts), not by calling window.CKEDITOR, which this world cannot see.
//
// Every string the page controls is cut before it is returned: a hostile
// page's label or value cannot blow up an answer.

// jsFormHelpers are shared by the functions below: text cutting, where the
// form is, what a control is called, and which editor an element is.
const jsFormHelpers = snapshot.JSErrorWords + `
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
`

// JSReadForm reads one document for read_form: fields, buttons, editors
// and publish controls inside root (default: the first form; whole=true:
// the whole document), through open shadow roots. Frames are read
// separately, each in its own world. Values are cut to valueChars; a
// password's value is never read.
const JSReadForm = `function(root, whole, maxFields, valueChars) {` + jsFormHelpers + `
  const roots = allRoots();
  const sc = scopeOf(roots, root, whole);
  if (sc.missing) return {found: false};
  const scope = sc.el;
  const out = {found: true, scope: describeScope(scope), fields: [], buttons: [], editors: [], drafts: [],
    hiddenCount: 0, totalFields: 0, optionLimit: 60};
  for (const el of queryAll(roots, 'input,select,textarea')) {
    if (!within(scope, el)) continue;
    if (el.localName === 'input' && el.type === 'hidden') { out.hiddenCount++; continue; }
    if (isButtonInput(el)) continue;
    if (out.drafts.length < 20 && isPublishControl(el))
      out.drafts.push({name: cut(el.name, 80), id: cut(el.id, 80), value: cut(el.value, 80), checked: el.checked,
        label: cut(optionLabel(el), 60), selector: selectorOf(el)});
    out.totalFields++;
    if (out.fields.length >= maxFields) continue;
    const f = {tag: el.localName, type: el.localName === 'input' ? el.type : (el.localName === 'select' ? el.type : 'textarea'),
      name: cut(el.name, 120), id: cut(el.id, 120), label: labelOf(el), required: !!el.required,
      disabled: disabledOf(el), usable: usableOf(el)};
    if (el.localName === 'select') {
      const opts = el.options;
      f.options = [];
      for (let i = 0; i < opts.length && i < 60; i++)
        f.options.push({value: cut(opts[i].value, 120), text: cut(opts[i].text, 80), selected: opts[i].selected});
      if (opts.length > 60) f.optionCount = opts.length;
      f.multiple = el.multiple;
      f.value = cut(el.value, valueChars);
    } else if (el.type === 'file') {
      f.accept = cut(el.accept, 120);
      f.multiple = el.multiple;
    } else if (el.type === 'checkbox' || el.type === 'radio') {
      f.checked = el.checked;
      f.value = cut(el.value, valueChars);
    } else if (el.type === 'password') {
      f.filled = el.value !== '';
    } else {
      const v = String(el.value);
      f.value = cutRaw(v.slice(0, valueChars * 2), valueChars);
      if (v.length > valueChars) f.valueChars = v.length;
    }
    out.fields.push(f);
  }
  const btnSel = 'button,input[type=submit],input[type=image],input[type=button],input[type=reset],[role=button],[type="submit" i]';
  const subs = new Set(submitControls(roots));
  for (const b of new Set([...queryAll(roots, btnSel), ...subs])) {
    if (!within(scope, b) || out.buttons.length >= 40) continue;
    const native = b.localName === 'button' || b.localName === 'input';
    if (!native && !b.matches('[role=button]') && !subs.has(b)) continue;
    if (native && b.type === 'submit' && !subs.has(b)) continue; // listed as its web component
    out.buttons.push({tag: b.localName, type: native ? b.type : (subs.has(b) ? 'submit' : 'button'),
      name: cut(b.getAttribute('name'), 80), id: cut(b.id, 80),
      value: native ? cut(b.value, 80) : '',
      text: shownText(b), usable: usableOf(b), selector: selectorOf(b)});
  }
  for (const el of editorsIn(roots, scope).slice(0, 20)) out.editors.push(editorOf(el, 300));
  return out;
}`

// JSReadDraft reads one document for read_draft: what the form (the first
// form, else the whole document) is about to send, cut to maxChars each.
// Checkboxes and radios appear only when checked; hidden inputs are
// counted; a password's value is never read.
const JSReadDraft = `function(maxChars) {` + jsFormHelpers + `
  const roots = allRoots();
  const scope = scopeOf(roots, '', false).el;
  const out = {scope: describeScope(scope), fields: [], editors: [], attachments: [], state: [], submits: [],
    hiddenCount: 0, totalFields: 0};
  for (const el of queryAll(roots, 'input,select,textarea')) {
    if (!within(scope, el) || isButtonInput(el)) continue;
    if (el.localName === 'input' && el.type === 'hidden') { out.hiddenCount++; continue; }
    if (el.type === 'file') {
      if (out.attachments.length < 20)
        out.attachments.push({name: cut(el.name, 80), id: cut(el.id, 80), accept: cut(el.accept, 120), multiple: el.multiple,
          files: Array.from(el.files || []).slice(0, 20).map(f => cut(f.name, 120)), usable: usableOf(el)});
      continue;
    }
    if (el.checked && out.state.length < 20 && isPublishControl(el))
      out.state.push({name: cut(el.name, 80), value: cut(el.value, 80), label: cut(optionLabel(el), 60), id: cut(el.id, 80)});
    if ((el.type === 'checkbox' || el.type === 'radio') && !el.checked) continue;
    let value = el.localName === 'select' ? Array.from(el.selectedOptions).map(o => o.text).join(', ') : String(el.value);
    if (!norm(value) && el.type !== 'checkbox' && el.type !== 'radio') continue;
    out.totalFields++;
    if (out.fields.length >= 200) continue;
    const f = {name: cut(el.name, 80), label: labelOf(el), type: el.localName === 'input' ? el.type : el.localName, usable: usableOf(el)};
    if (el.type === 'password') f.filled = true;
    else {
      f.value = cutRaw(value.slice(0, maxChars * 2), maxChars);
      if (value.length > maxChars) f.valueChars = value.length;
    }
    out.fields.push(f);
  }
  for (const el of editorsIn(roots, scope).slice(0, 20)) out.editors.push(editorOf(el, maxChars));
  for (const b of submitControls(roots)) {
    if (!within(scope, b) || out.submits.length >= 20) continue;
    out.submits.push({text: shownText(b), name: cut(b.getAttribute('name'), 80), selector: selectorOf(b), usable: usableOf(b)});
  }
  return out;
}`

// JSFrameScope runs on an iframe element (this) in its parent's world:
// whether the frame is inside what read_form reads (root, default the
// first form; whole=true: everything), and whether it is an editor this
// world already reads through contentDocument (then its own document is
// not read again).
const JSFrameScope = `function(root, whole) {` + jsFormHelpers + `
  const roots = allRoots();
  const sc = scopeOf(roots, root, whole);
  const inside = !sc.missing && within(sc.el, this);
  return {inside, editorRead: inside && isEditorFrame(this) && !!frameDoc(this), owner: selectorOf(this)};
}`

// JSFindEditor returns the first editor of the document (an editor iframe
// first: a page may keep both, and the iframe is where
// the editor writes), else the first inline editor; null when none.
const JSFindEditor = `function() {` + jsFormHelpers + `
  const eds = editorsIn(allRoots(), null);
  return eds.find(e => e.localName === 'iframe') || eds[0] || null;
}`

// JSWriteEditor writes content into the editor `this` is (an editor
// iframe, an editing host, or an element inside either), as text or, with
// html, as markup; fires input and change; then fills the field the form
// posts the way CKEditor's updateElement() does (the body's HTML into the
// hidden textarea) and fires input and change there too.
const JSWriteEditor = `function(content, html) {` + jsFormHelpers + `
  let el = this;
  if (el.localName !== 'iframe' && !el.isContentEditable) {
    const inner = el.querySelector('iframe,[contenteditable],.ql-editor,.ProseMirror');
    if (!inner) return {not_editor: true, surface: selectorOf(el)};
    el = inner;
  }
  while (el.localName !== 'iframe' && el.parentElement && el.parentElement.isContentEditable) el = el.parentElement;
  const kind = editorKind(el);
  const body = surfaceOf(el);
  if (!body) return {unreadable: true, kind, surface: selectorOf(el)};
  if (el.localName === 'iframe' && !editableDoc(body.ownerDocument) && !body.isContentEditable) return {not_editor: true, surface: selectorOf(el)};
  if (el.localName !== 'iframe' && !el.isContentEditable) return {not_editor: true, surface: selectorOf(el)};
  const doc = body.ownerDocument;
  const surface = el.localName === 'iframe' ? selectorOf(el) + ' > body' : selectorOf(el);
  body.focus();
  let done = false;
  if (!html) {
    // Typed text, the way a person's input arrives: editors that keep a
    // model (ProseMirror, Quill) hear it as an edit.
    try {
      const sel = doc.getSelection(), range = doc.createRange();
      range.selectNodeContents(body);
      sel.removeAllRanges();
      sel.addRange(range);
      done = doc.execCommand('insertText', false, content) && norm(body.innerText) === norm(content);
    } catch (e) { done = false; }
    if (!done) body.innerText = content;
  } else {
    body.innerHTML = content;
  }
  body.dispatchEvent(new InputEvent('input', {bubbles: true, composed: true, inputType: html ? 'insertFromPaste' : 'insertText'}));
  body.dispatchEvent(new Event('change', {bubbles: true}));
  const out = {kind, surface, written: content.length, surface_chars: String(body.innerText || '').length};
  const field = postedFieldOf(el);
  if (field) {
    field.value = body.innerHTML;
    field.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
    field.dispatchEvent(new Event('change', {bubbles: true}));
    out.synced_editor = field.id || field.name;
    out.synced_field = field.name || field.id;
    out.field_chars = field.value.length;
  }
  return out;
}`

// JSPublishState lists the checked publish controls of the document's
// first form (else the whole document): what save_draft checks before it
// sends and publish reads back.
const JSPublishState = `function() {` + jsFormHelpers + `
  const roots = allRoots();
  const scope = scopeOf(roots, '', false).el;
  const out = [];
  for (const el of queryAll(roots, 'input[type=radio],input[type=checkbox]')) {
    if (!within(scope, el) || !el.checked || !isPublishControl(el) || out.length >= 20) continue;
    out.push({name: cut(el.name, 80), value: cut(el.value, 80), label: cut(optionLabel(el), 60), id: cut(el.id, 80)});
  }
  return out;
}`

// JSAfterSend reads a page back after a form was sent: a server that
// refuses usually answers the form again with its reasons, on the same URL
// and with a 200, so only the page can tell a refusal from a save. The
// reasons are what sites write errors in: alert and error containers
// (role=alert, .alert, .error, .errors, .field-error, .invalid-feedback,
// .text-danger ...; the innermost when they nest), and fields marked
// aria-invalid=true with their message (aria-errormessage, else
// aria-describedby). A box that is not visible or says nothing, and one
// that says success (.alert-success, .notice-info), does not count; nor
// do words: a page whose article says "error" is no refusal.
const JSAfterSend = `function() {` + jsFormHelpers + `
  const roots = allRoots();
  const form = queryAll(roots, 'form')[0] || null;
  const out = {form_present: !!form, errors: [], alert: ''};
  const add = text => {
    if (out.errors.length >= 5 || !text || out.errors.some(e => e.includes(text) || text.includes(e))) return;
    out.errors.push(text);
    if (!out.alert) out.alert = text;
  };
  const errorBox = el => el.getAttribute('role') === 'alert' || el.id === 'alert' || (classTokens(el).includes('alert') && !classSays(el, OK_WORD)) || classSays(el, ERROR_WORD);
  const boxSel = '[role=alert],#alert,.alert,[class*=error i],[class*=invalid],[class*=alertbox]';
  // Controls are not messages (a .btn-error Delete button), nor is text
  // without words (a required field's red asterisk). A label can be one
  // (jQuery Validate writes <label class=error>).
  const control = 'a[href],button,input,select,textarea,summary,[role=button],[role=link]';
  // A box is a message: not a field, not the page, not a wrapper of
  // the whole app (a React .error-boundary) that holds pages of text.
  const boxes = queryAll(roots, boxSel).filter(b => errorBox(b) && !classSays(b, OK_WORD) &&
    !['form', 'body', 'html'].includes(b.localName) && !b.closest(control) && visible(b) &&
    String(b.textContent).length < 4000 && String(b.innerText || '').length <= 1000 &&
    /\p{L}{2}/u.test(b.innerText || ''));
  // The innermost: a wrapper (.has-error around a field) gives way to the
  // message inside it.
  const inner = boxes.filter(b => !boxes.some(o => o !== b && b.contains(o)));
  for (const box of inner) add(cut(box.innerText || box.textContent, 300));
  const textById = (el, attr) => {
    const ids = (el.getAttribute(attr) || '').split(/\s+/).filter(Boolean).slice(0, 4);
    const root = el.getRootNode();
    return norm(ids.map(id => { const t = root.getElementById ? root.getElementById(id) : null; return t && visible(t) ? t.innerText || t.textContent : ''; }).join(' '));
  };
  for (const el of queryAll(roots, '[aria-invalid=true i]')) {
    if (out.errors.length >= 5 || !visible(el)) continue;
    const msg = textById(el, 'aria-errormessage') || textById(el, 'aria-describedby') || (el.validationMessage || 'not valid');
    const label = labelOf(el) || cut(el.getAttribute('name'), 60);
    add(cut((label ? label + ': ' : '') + msg, 300));
  }
  out.refused = out.errors.length > 0;
  return out;
}`

// JSValidityOf reads, on a control that sends a form, whether the
// browser's own validation stops the send: the form validates (no
// novalidate, no formnovalidate on the control) and some field of it is
// :invalid. fields are those fields' labels and validationMessage (at
// most 5). Reading validity fires no event.
const JSValidityOf = `function() {` + jsFormHelpers + `
  const f = formOf(this);
  if (!f || f.noValidate || this.formNoValidate) return {blocked: false, fields: []};
  const bad = [];
  for (const el of f.elements) {
    if (bad.length >= 5) break;
    if (!el.willValidate || el.validity.valid) continue;
    const label = labelOf(el) || cut(el.name, 60) || el.type;
    bad.push(cut(label + ': ' + (el.validationMessage || 'not valid'), 300));
  }
  return {blocked: bad.length > 0, fields: bad};
}`

// JSLocateSubmit finds the submit control whose text is want (what
// read_form's submitText gives): exact text first, then the same text in
// any case; a usable match before one that is not. Matches that send the
// same form the same way (a CMS's Save at the top and at the bottom) are
// one control. It answers {el, info}: info is JSON with the matches, how
// they matched, whether they were ambiguous, and the page's submit
// controls as candidates.
const JSLocateSubmit = `function(want) {` + jsFormHelpers + `
  const roots = allRoots();
  const forms = queryAll(roots, 'form');
  const subs = submitControls(roots).map(el => ({el, text: shownText(el), usable: usableOf(el)}));
  const w = norm(want);
  let how = 'exact', m = subs.filter(s => s.text === w);
  if (!m.length) { how = 'case'; m = subs.filter(s => s.text.toLowerCase() === w.toLowerCase()); }
  const usable = m.filter(s => s.usable);
  if (usable.length) m = usable;
  const key = s => [forms.indexOf(formOf(s.el)), s.el.getAttribute('name') || '', s.el.getAttribute('value') || '',
    s.el.getAttribute('formaction') || '', s.el.getAttribute('formmethod') || '', s.el.localName].join('\u0000');
  const ambiguous = m.length > 1 && m.some(s => key(s) !== key(m[0]));
  const desc = s => ({text: s.text, selector: selectorOf(s.el), usable: s.usable,
    form: describeScope(formOf(s.el))});
  const info = {matches: m.length, how: m.length ? how : '', ambiguous,
    candidates: (ambiguous ? m : subs).slice(0, 12).map(desc)};
  return {el: m.length && !ambiguous ? m[0].el : null, info: JSON.stringify(info)};
}`

// JSSubmitterOf describes a control that sends a form: its text, name
// and value, which save_draft reads for a control that itself publishes.
const JSSubmitterOf = `function() {` + jsFormHelpers + `
  return {text: shownText(this), name: cut(this.getAttribute('name'), 80), value: cut(this.getAttribute('value'), 80)};
}`

// JSFormSendsOf reads, on the control that sends a form (or any element
// in one), where the form goes and what it sends under the names of its
// publish controls, in one synchronous read, so that the page cannot
// change one between the two: action (the control's formaction for a
// submit button, else the form's action), method, fields (for each publish
// control's name, the values the browser would put in the body now:
// checked radios and checkboxes, any other field of that name, the
// control itself when it is a named submit button), and state: the form's
// checked publish controls. It fires no event (new FormData would fire
// the page's formdata listeners). A form-associated custom element with
// such a name, whose value this world cannot read, puts an impossible
// value in: no body matches it.
const JSFormSendsOf = `function() {` + jsFormHelpers + `
  const f = formOf(this);
  const out = {action: '', method: '', fields: {}, state: []};
  const roots = allRoots();
  for (const el of queryAll(roots, 'input[type=radio],input[type=checkbox]')) {
    if (f && el.form !== f) continue;
    if (!el.checked || !isPublishControl(el) || out.state.length >= 20) continue;
    out.state.push({name: cut(el.name, 80), value: cut(el.value, 80), label: cut(optionLabel(el), 60), id: cut(el.id, 80)});
  }
  if (!f) return out;
  const submitter = ((this.localName === 'button' && this.type === 'submit') ||
    (this.localName === 'input' && (this.type === 'submit' || this.type === 'image'))) && this.form === f ? this : null;
  out.action = String(submitter && submitter.hasAttribute('formaction') ? submitter.formAction : f.action);
  out.method = String(submitter && submitter.hasAttribute('formmethod') ? submitter.formMethod : f.method);
  const names = [];
  for (const el of f.elements) {
    if (el.localName === 'input' && (el.type === 'radio' || el.type === 'checkbox') && el.name && isPublishControl(el) &&
      !names.includes(el.name) && names.length < 20) names.push(el.name);
  }
  if (!names.length) return out;
  const value = v => String(v).slice(0, 4097).replace(/\r\n|\r|\n/g, '\r\n');
  for (const n of names) out.fields[n] = [];
  const listed = ['input', 'select', 'textarea', 'button', 'fieldset', 'object', 'output'];
  for (const el of f.elements) {
    const name = el.getAttribute('name') || '';
    if (!names.includes(name)) continue;
    if (!listed.includes(el.localName)) { out.fields[name].push('\u0000unreadable'); continue; }
    if (disabledOf(el) || el.closest('datalist')) continue;
    if (el.localName === 'fieldset' || el.localName === 'object' || el.localName === 'output') continue;
    if (el.localName === 'button' || isButtonInput(el)) {
      if (el === submitter && el.type !== 'image') out.fields[name].push(value(el.value));
      continue;
    }
    if (el.localName === 'select') {
      for (const o of el.selectedOptions) if (!o.disabled) out.fields[name].push(value(o.value));
      continue;
    }
    if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio') && !el.checked) continue;
    if (el.localName === 'input' && el.type === 'file') { out.fields[name].push('\u0000unreadable'); continue; }
    out.fields[name].push(value(el.value));
  }
  return out;
}`

// JSArmSendCheck arms, on the control that sends a form, lyrad's check of
// what the frame's forms send: fields is the publish state approved
// (FormSends.Fields). Chrome 156 hands no navigation's body to DevTools,
// so the check stands where the browser builds the body: a listener for
// the formdata event on the frame's window, which the browser fires on
// every form submission once the page's submit handlers have run and
// clones into the body as soon as its listeners return. It is the last
// listener (it stops those the page adds after it), and it reads the
// entry list the browser is about to send. When the publish fields do
// not hold what was approved, it takes the form out of the document for
// that moment: the browser then drops the submission (a form that is no
// longer connected cannot navigate), and the form is put back. What it
// stopped is kept for JSSendStopped. Armed again, it replaces itself;
// JSDisarmSendCheck takes it away.
const JSArmSendCheck = `function(fields, token) {
  const win = this.ownerDocument.defaultView;
  if (globalThis.lyradSendCheck) globalThis.lyradSendCheck.win.removeEventListener('formdata', globalThis.lyradSendCheck.listener);
  globalThis.lyradSendStopped = '';
  const names = Object.keys(fields);
  const want = {};
  for (const n of names) want[n] = fields[n].map(String).sort();
  const q = s => JSON.stringify(String(s).slice(0, 60));
  const listener = e => {
    if (!e.isTrusted) return;
    e.stopImmediatePropagation();
    let bad = '';
    for (const n of names) {
      const got = e.formData.getAll(n).map(v => typeof v === 'string' ? v : '\u0000file').sort();
      if (JSON.stringify(got) !== JSON.stringify(want[n])) {
        bad = q(n) + ' sent as ' + (got.length ? got.slice(0, 4).map(q).join(', ') : 'nothing') +
          ', approved as ' + (want[n].length ? want[n].slice(0, 4).map(q).join(', ') : 'nothing');
        break;
      }
    }
    if (!bad) {
      // Told at once, while the page still answers: a frame whose
      // navigation is held answers no DevTools call.
      try { if (typeof lyradSendChecked === 'function') lyradSendChecked(token); } catch (x) {}
      return;
    }
    const form = e.target;
    const parent = form.parentNode, next = form.nextSibling;
    globalThis.lyradSendStopped = bad;
    if (!parent) return;
    parent.removeChild(form);
    setTimeout(() => { try { parent.insertBefore(form, next && next.parentNode === parent ? next : null); } catch (x) {} }, 0);
  };
  const check = {win, listener, token};
  globalThis.lyradSendCheck = check;
  win.addEventListener('formdata', listener);
  return true;
}`

// JSDisarmSendCheck takes the check armed with token away (one armed
// since by another call stays).
const JSDisarmSendCheck = `function(token) {
  const c = globalThis.lyradSendCheck;
  if (!c || c.token !== token) return false;
  c.win.removeEventListener('formdata', c.listener);
  globalThis.lyradSendCheck = null;
  return true;
}`

// JSSendStopped answers what the armed check stopped in this frame since
// it was armed ("" for nothing).
const JSSendStopped = `function() { return String(globalThis.lyradSendStopped || ''); }`
