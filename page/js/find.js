// jsFind is appended to jsHelpers: find(kind, sel) lists what a selector
// names in this frame's document, open shadow roots included. kind is css,
// text or xpath.
// 
// text= follows Playwright: text=Save matches, case-insensitively, any
// element whose text contains "Save"; text="Save" needs the whole
// (whitespace-normalised) text to be exactly that; text=/sa.e/i is a
// regular expression. The innermost element holding the text matches, lifted
// to the control around it (a span inside a button names the button).
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
