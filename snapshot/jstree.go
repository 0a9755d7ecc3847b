package snapshot

// JSTree reads one document's part of the action map, in lyrad's isolated
// world: the elements an agent acts on (and headings, to find its way), in
// flat-tree order, with the role, name and states an accessibility tree
// would give them, their boxes, and where each frame element stands.
//
// It is what Chrome's accessibility tree was asked for before, computed
// where the DOM is: Accessibility.getFullAXTree serialises every node of
// the document with every property (2.6 MB for a long article) to list a
// few hundred of them, and DOMSnapshot adds every box; this walks the
// document once and answers the few hundred lines. The rules follow Chrome's
// (roles by HTML-AAM, names by accname: aria-labelledby, aria-label,
// labels, alt, content, title, placeholder), and e2e tests hold them to
// Chrome's own tree on pages of tricky markup.
//
// Elements get an id from a table kept in the isolated world (which lives
// as long as the document and is invisible to the page): the same element
// keeps its id across reads, and a ref resolves through it (JSRefNode). The
// table's token changes with the world, so an id from another world never
// names an element of this one.
//
// Argument region: null for the whole document; {sel} a CSS or text=
// selector; {id} an element id of this table. Answer: {token, found, vw, vh,
// items: [[id, role, name, states, href, x, y, w, h]], frames: [[index, x,
// y, w, h]]} where a frame entry's index is the item position it stands at
// and its box is the frame element's content box; item boxes are in this
// document's viewport coordinates.
//
// The whole script is sent once per document: it leaves its read function
// in the table, and later reads call JSTreeAgain, which is a few bytes to
// compile instead of all of this.
var JSTree = fn("region", treeLib+`
	T.read = (region) => {
		let root = document.body || document.documentElement;
		if (region && region.sel) root = find(region.sel);
		else if (region && region.id) root = T.node(region.id);
		const out = { token: T.token, found: !!root, vw: innerWidth, vh: innerHeight, items: [], frames: [] };
		if (!root) return out;
		leafOwned = null;
		pseudoWatch();
		const modal = document.querySelector(':modal');
		walk(root, out, modal, region ? ancestorsHidden(root) : false);
		return out;
	};
	return T.read(region);
`)

// JSTreeAgain is JSTree by the read function an earlier JSTree left in this
// world; null when there is none (a new document's world).
const JSTreeAgain = `function(region) {
	const T = globalThis.__lyradTree;
	return T && T.read ? T.read(region) : null;
}`

// JSRefNode is the element a table id names, or null when it is gone (the
// world is another one, or the element was removed): callFunctionOn with
// returnByValue false gives its object, for DOM.describeNode.
var JSRefNode = fn("token, id", treeLib+`
	if (token !== T.token) return null;
	const el = T.node(id);
	return el && el.isConnected ? el : null;
`)

// JSNodeID is the table id of the element `this` (for a frame's owner
// element, found by backend node id).
var JSNodeID = fn("", treeLib+`
	return { token: T.token, id: T.id(this) };
`)

const treeLib = `
	const T = globalThis.__lyradTree || (globalThis.__lyradTree = (() => {
		const ids = new WeakMap(), byId = new Map();
		let next = 0;
		const token = Math.random().toString(36).slice(2) + Date.now().toString(36);
		return {
			token,
			id(el) {
				let n = ids.get(el);
				if (!n) {
					n = ++next;
					ids.set(el, n);
					byId.set(n, new WeakRef(el));
				}
				return n;
			},
			node(n) {
				const r = byId.get(n);
				const el = r && r.deref();
				if (!el) byId.delete(n);
				return el || null;
			},
		};
	})());

	// The roles the map lists. Chrome's own names for native controls
	// (DisclosureTriangle for <summary>, ColorWell, Date, ...) included.
	const LISTED = new Set(['link', 'button', 'checkbox', 'radio', 'switch', 'textbox', 'searchbox', 'combobox',
		'listbox', 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'slider', 'spinbutton',
		'treeitem', 'heading', 'DisclosureTriangle', 'ColorWell', 'Date', 'DateTime', 'InputTime', 'PopUpButton',
		'ToggleButton']);
	// Leaves: a field's inner content is its value, a select's options are read with read_form.
	const LEAF = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'slider']);
	// Roles whose name may come from their content (accname "name from content").
	const FROM_CONTENT = new Set(['link', 'button', 'checkbox', 'radio', 'switch', 'option', 'menuitem',
		'menuitemcheckbox', 'menuitemradio', 'tab', 'treeitem', 'heading', 'DisclosureTriangle', 'ToggleButton',
		'PopUpButton', 'cell', 'columnheader', 'rowheader', 'tooltip', 'row', 'gridcell']);
	const KNOWN = new Set([...LISTED, 'presentation', 'none', 'generic', 'group', 'region', 'navigation', 'main',
		'banner', 'contentinfo', 'complementary', 'form', 'search', 'dialog', 'alertdialog', 'alert', 'article',
		'list', 'listitem', 'img', 'figure', 'table', 'row', 'cell', 'gridcell', 'grid', 'rowgroup', 'columnheader',
		'rowheader', 'menu', 'menubar', 'tablist', 'tabpanel', 'toolbar', 'tree', 'treegrid', 'radiogroup',
		'separator', 'status', 'log', 'marquee', 'timer', 'tooltip', 'note', 'document', 'application', 'math',
		'term', 'definition', 'directory', 'feed', 'progressbar', 'scrollbar', 'meter', 'paragraph', 'blockquote',
		'caption', 'code', 'deletion', 'insertion', 'emphasis', 'strong', 'subscript', 'superscript', 'time',
		'mark', 'comment', 'suggestion', 'image']);
	// Roles that neither have nor give a name from content: containers of
	// many things. Met while naming from content, they add nothing (Blink's
	// SupportsNameFromContents).
	const NO_CONTENT = new Set(['alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote',
		'complementary', 'dialog', 'document', 'feed', 'figure', 'form', 'grid', 'group', 'listbox', 'log', 'main',
		'marquee', 'math', 'menu', 'menubar', 'meter', 'navigation', 'progressbar', 'radiogroup', 'scrollbar',
		'search', 'slider', 'status', 'table', 'tablist', 'tabpanel', 'timer', 'toolbar', 'tree', 'treegrid', 'Iframe',
		'region']);
	// The implicit roles, of those that matter to NO_CONTENT.
	const TAG_ROLE = { article: 'article', figure: 'figure', nav: 'navigation', aside: 'complementary', header: 'banner',
		main: 'main', form: 'form', blockquote: 'blockquote', fieldset: 'group', dialog: 'dialog', menu: 'list',
		progress: 'progressbar', meter: 'meter', search: 'search' };
	const REPLACED = new Set(['img', 'svg', 'input', 'select', 'textarea', 'button', 'video', 'audio', 'canvas',
		'iframe', 'object', 'embed', 'picture', 'meter', 'progress']);
	const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE']);

	function focusable(el) {
		return el.tabIndex >= 0 && !el.matches(':disabled') || el.isContentEditable;
	}

	function role(el) {
		const attr = el.getAttribute('role');
		if (attr) {
			for (const r of attr.trim().toLowerCase().split(/\s+/)) {
				if (r === 'presentation' || r === 'none') {
					if (focusable(el)) break; // a focusable element keeps its own role
					return 'none';
				}
				if (KNOWN.has(r)) {
					// An option outside a listbox is none (its required context).
					if (r === 'option' && !el.parentElement?.closest('[role~=listbox], [role~=combobox], select, datalist')) return 'generic';
					if (r === 'treeitem' && !el.parentElement?.closest('[role~=tree], [role~=treegrid], [role~=group]')) return 'generic';
					return r === 'image' ? 'img' : r;
				}
			}
		}
		const tag = el.localName;
		switch (tag) {
		case 'a': case 'area':
			return el.hasAttribute('href') ? 'link' : 'generic';
		case 'button':
			return 'button';
		case 'input':
			switch ((el.type || 'text').toLowerCase()) {
			case 'hidden': return 'none';
			case 'button': case 'submit': case 'reset': case 'image': case 'file':
				return 'button';
			case 'checkbox': return 'checkbox';
			case 'radio': return 'radio';
			case 'range': return 'slider';
			case 'number': return 'spinbutton';
			case 'color': return 'ColorWell';
			case 'date': return 'Date';
			case 'datetime-local': return 'DateTime';
			case 'time': return 'InputTime';
			case 'month': case 'week': return 'DateTime';
			case 'search': return el.hasAttribute('list') ? 'combobox' : 'searchbox';
			default: return el.hasAttribute('list') ? 'combobox' : 'textbox';
			}
		case 'textarea': return 'textbox';
		case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
		case 'option': return 'option';
		case 'summary': {
			const d = el.parentElement;
			return d && d.localName === 'details' && d.querySelector(':scope > summary') === el ? 'DisclosureTriangle' : 'generic';
		}
		case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6':
			return 'heading';
		case 'iframe': case 'frame':
			return 'Iframe';
		}
		return TAG_ROLE[tag] || 'generic';
	}

	// shown: laid out, and not visibility:hidden (nor inside content-visibility:hidden).
	function shown(el) {
		return el.checkVisibility ? el.checkVisibility({ visibilityProperty: true }) : true;
	}

	// box is the element's border box, or when it has none of its own (an
	// inline wrapping only blocks taken out of flow, display:contents), the
	// union of its descendants' boxes.
	function box(el) {
		const r = el.getBoundingClientRect();
		if (r.width > 0 && r.height > 0) return [r.x, r.y, r.width, r.height];
		let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity, n = 0;
		const w = document.createTreeWalker(el, NodeFilter.SHOW_ELEMENT);
		for (let c = w.nextNode(); c && n < 64; c = w.nextNode(), n++) {
			const b = c.getBoundingClientRect();
			if (b.width > 0 && b.height > 0) {
				x0 = Math.min(x0, b.x); y0 = Math.min(y0, b.y);
				x1 = Math.max(x1, b.right); y1 = Math.max(y1, b.bottom);
			}
		}
		if (x1 > x0 && y1 > y0) return [x0, y0, x1 - x0, y1 - y0];
		// Text overflowing a box of no size still shows.
		const rg = document.createRange();
		rg.selectNodeContents(el);
		const t = rg.getBoundingClientRect();
		return t.width > 0 && t.height > 0 ? [t.x, t.y, t.width, t.height] : null;
	}

	function byIds(el, attr) {
		const v = el.getAttribute(attr);
		if (!v) return [];
		const rn = el.getRootNode();
		const out = [];
		for (const id of v.trim().split(/\s+/)) {
			const t = rn.getElementById ? rn.getElementById(id) : document.getElementById(id);
			if (t) out.push(t);
		}
		return out;
	}

	// labelledBy: the elements aria-labelledby names, or, without it, the
	// misspelt aria-labeledby that Chrome honours too.
	function labelledBy(el) {
		return byIds(el, el.hasAttribute('aria-labelledby') ? 'aria-labelledby' : 'aria-labeledby');
	}

	// sp collapses runs of ASCII whitespace and trims them, as Chrome does
	// in a name: U+00A0 is kept.
	const sp = (s) => String(s || '').replace(/[ \t\n\r\f]+/g, ' ').replace(/^ | $/g, '');

	// name is the accessible name of el in role r (accname 1.2, as Chrome
	// computes it for the roles the map lists). cx is the computation's
	// state: the element named (root), the nodes already reached through
	// aria-labelledby (visited: a node met again adds nothing), whether
	// hidden nodes count (hiddenOK: inside a hidden labelledby target), and
	// whether the walk is inside aria-labelledby (inLb: nested ones are not
	// followed).
	function name(el, r) {
		return ownName(el, r, { root: el, visited: new Set([el]), hiddenOK: false, inLb: false }, false);
	}

	function ownName(el, r, cx, skipLb) {
		if (!skipLb) {
			const lb = labelledBy(el);
			if (lb.length) {
				// A reference to itself is its name without aria-labelledby.
				const s = sp(lb.map((t) => t === el ? ownName(el, r, cx, true) : lbText(t, cx)).join(' '));
				if (s) return s;
			}
		}
		const al = sp(el.getAttribute('aria-label'));
		if (al) return al;
		const tag = el.localName;
		if (tag === 'img' || tag === 'area') {
			if (el.hasAttribute('alt')) {
				const a = sp(el.getAttribute('alt'));
				if (a) return a;
			}
		} else if (tag === 'svg') {
			const t = el.querySelector(':scope > title');
			if (t && sp(t.textContent)) return sp(t.textContent);
		}
		if (tag === 'input' || tag === 'textarea' || tag === 'select') {
			const type = (el.type || '').toLowerCase();
			if (tag === 'input' && (type === 'button' || type === 'submit' || type === 'reset')) {
				const v = el.getAttribute('value');
				if (v !== null) return sp(v) || (type === 'button' ? '' : sp(v));
				return type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : sp(el.title);
			}
			if (el.labels && el.labels.length) {
				const s = sp([...el.labels].map((l) => textAlt(l, cx, false)).join(' '));
				if (s) return s;
				if (type !== 'image') return ''; // an empty label: Chrome falls back to neither title nor placeholder
			}
			if (tag === 'input' && type === 'image') {
				return sp(el.alt) || sp(el.getAttribute('value')) || sp(el.title) || 'Submit';
			}
			if (tag === 'input' && type === 'file') return el.multiple ? 'Choose Files' : 'Choose File';
		}
		if (FROM_CONTENT.has(r)) {
			const s = sp(content(el, cx));
			if (s) return s;
		}
		const title = sp(el.getAttribute('title'));
		if (title) return title;
		if (tag === 'input' || tag === 'textarea') {
			const p = sp(el.getAttribute('placeholder'));
			if (p) return p;
		}
		const ap = sp(el.getAttribute('aria-placeholder'));
		if (ap) return ap;
		if (r === 'link' || r === 'button') {
			// A link or button of an image only: the image's title.
			const img = el.querySelector('img[title], svg title');
			if (img) return sp(img.getAttribute ? img.getAttribute('title') || img.textContent : '');
		}
		return '';
	}

	// hiddenForText: el is not rendered (display:none, visibility:hidden,
	// content-visibility) or is inside aria-hidden. A display:contents
	// element has no box of its own but is as shown as its parent.
	function hiddenForText(el) {
		if (el.closest('[aria-hidden="true"]')) return true;
		let e = el;
		while (e && getComputedStyle(e).display === 'contents') e = e.parentElement || e.getRootNode().host;
		return !!e && e.checkVisibility && !e.checkVisibility({ visibilityProperty: true });
	}

	// lbText is the text of an aria-labelledby target: hidden nodes inside a
	// hidden target count, a target already reached adds nothing.
	function lbText(t, cx) {
		if (cx.visited.has(t)) return '';
		cx.visited.add(t);
		const inner = { root: cx.root, visited: cx.visited, hiddenOK: cx.hiddenOK || hiddenForText(t), inLb: true };
		return textAlt(t, inner, true);
	}

	// textAlt is the text alternative of a node met while naming another:
	// through aria-labelledby (direct: the target itself) or content.
	function textAlt(el, cx, direct, cs) {
		if (el === cx.root || (!direct && cx.visited.has(el))) return '';
		cs = cs || getComputedStyle(el);
		if (!cx.hiddenOK) {
			if (el.getAttribute('aria-hidden') === 'true' || cs.display === 'none') return '';
			if (cs.display !== 'contents' && el.checkVisibility && !el.checkVisibility()) return '';
		}
		// visibility:hidden hides the element's own text, not a visible descendant's.
		const vis = cx.hiddenOK || cs.visibility === 'visible';
		if (!cx.inLb) {
			const lb = labelledBy(el);
			if (lb.length) {
				const s = sp(lb.map((t) => lbText(t, cx)).join(' '));
				if (s) return s;
			}
		}
		if (el.localName === 'slot') return content(el, cx, cs);
		const r = role(el);
		if (vis) {
			// An embedded control gives its value (before its aria-label, as Chrome).
			const v = controlValue(el, r);
			if (v !== null) return sp(v);
		}
		if (!direct && NO_CONTENT.has(r)) return '';
		if (vis) {
			const al = sp(el.getAttribute('aria-label'));
			if (al) return al;
			const tag = el.localName;
			if (tag === 'img' || tag === 'area') return el.hasAttribute('alt') ? sp(el.getAttribute('alt')) : sp(el.getAttribute('title'));
			if (tag === 'svg') {
				const t = el.querySelector(':scope > title');
				return t ? sp(t.textContent) : '';
			}
			if (tag === 'input') {
				const type = (el.type || 'text').toLowerCase();
				if (type === 'button' || type === 'submit' || type === 'reset') return sp(el.value);
				if (type === 'image') return sp(el.alt) || sp(el.value);
				return '';
			}
		}
		// A descendant's title adds nothing (as in Chrome): only the named
		// element's own title is a last resort (name).
		return content(el, cx, cs);
	}

	// controlValue is what an embedded control gives a name it sits in: a
	// field's value, a select's or listbox's chosen option, a range's value;
	// null for what is not such a control.
	function controlValue(el, r) {
		const tag = el.localName;
		switch (r) {
		case 'textbox': case 'searchbox':
			return tag === 'input' || tag === 'textarea' ? el.value : el.textContent;
		case 'combobox':
			if (tag === 'input' || tag === 'textarea') return el.value;
			if (tag === 'select') {
				const o = el.selectedOptions && el.selectedOptions[0];
				return o ? o.label || o.textContent : '';
			}
			return chosen(el, ['aria-owns', 'aria-controls']) || el.textContent;
		case 'listbox':
			if (tag === 'select') return [...el.selectedOptions].map((o) => o.label || o.textContent).join(' ');
			return chosen(el, ['aria-owns']);
		case 'slider': case 'spinbutton': case 'progressbar': case 'scrollbar': case 'meter': {
			const vt = el.getAttribute('aria-valuetext');
			if (vt) return vt;
			const vn = el.getAttribute('aria-valuenow');
			if (vn) return vn;
			return tag === 'input' || tag === 'progress' || tag === 'meter' ? String(el.value) : '';
		}
		}
		return null;
	}

	// chosen: the text of the selected options in el or in what it owns.
	function chosen(el, attrs) {
		const scopes = [el];
		for (const a of attrs) scopes.push(...byIds(el, a));
		const out = [];
		for (const s of scopes) {
			for (const o of s.querySelectorAll('[role=option][aria-selected=true]')) out.push(sp(o.textContent));
			for (const o of s.querySelectorAll('[aria-owns]')) {
				if (o === el) continue;
				for (const t of byIds(o, 'aria-owns')) {
					for (const p of t.querySelectorAll('[role=option][aria-selected=true]')) out.push(sp(p.textContent));
				}
			}
		}
		return out.join(' ');
	}

	// content is the text of el's flat-tree children (and what it owns),
	// its ::before and ::after, block children set apart by spaces, as
	// Chrome puts them into a name. cx as name's; a Set of elements already
	// met is taken too (el is the one named).
	function content(el, cx, cs) {
		// content(el, seenSet, false), as callers outside naming have it.
		if (cx instanceof Set) cx = { root: el, visited: cx, hiddenOK: false, inLb: false };
		cs = cs || getComputedStyle(el);
		const tt = cs.textTransform;
		const textOK = cx.hiddenOK || cs.visibility === 'visible';
		let s = pseudo(el, '::before');
		const closed = el.localName === 'details' && !el.open;
		for (const c of nameKids(el)) {
			if (c.nodeType === 3) {
				if (!closed && textOK) s += transform(c.data, tt);
			} else if (c.nodeType === 1 && !SKIP.has(c.tagName)) {
				if (c.localName === 'br') { s += ' '; continue; }
				if (closed && c.localName !== 'summary') continue;
				// The element named, inside its own label, gives nothing but its box's space.
				if (c === cx.root) { s += ' '; continue; }
				const ccs = getComputedStyle(c);
				const t = textAlt(c, cx, false, ccs);
				// Inline text runs on; a box of its own (a block, an
				// inline-block, a replaced element: an image, an svg, a
				// control) is set apart, even one that gives no text.
				const d = ccs.display;
				if (d === 'none') { s += t; continue; } // no box: counts only inside a hidden labelledby target
				s += (d === 'inline' && !REPLACED.has(c.localName)) || d === 'contents' ? t : ' ' + t + ' ';
			}
		}
		return s + pseudo(el, '::after');
	}

	// pseudo is the text CSS generates in el's ::before or ::after (its
	// alternative text when the content has one: content: "x" / "alt").
	function pseudo(el, which) {
		const cached = el.getRootNode() === document;
		let pc = cached && pseudoCache.get(el);
		if (!pc) {
			pc = [pseudoText(el, '::before'), pseudoText(el, '::after')];
			if (cached) pseudoCache.set(el, pc);
		}
		return which === '::before' ? pc[0] : pc[1];
	}

	function pseudoText(el, which) {
		const ps = getComputedStyle(el, which);
		const c = ps.content;
		if (!c || c === 'none' || c === 'normal' || ps.display === 'none') return '';
		let cur = '';
		for (let i = 0; i < c.length;) {
			const ch = c[i];
			if (ch === '"' || ch === "'") {
				let j = i + 1;
				for (; j < c.length && c[j] !== ch; j++) {
					if (c[j] === '\\' && j + 1 < c.length) {
						const m = /^[0-9a-fA-F]{1,6} ?/.exec(c.slice(j + 1, j + 8));
						if (m) { cur += String.fromCodePoint(parseInt(m[0], 16)); j += m[0].length; } else { cur += c[j + 1]; j++; }
					} else cur += c[j];
				}
				i = j + 1;
			} else if (ch === '/') {
				cur = ''; i++;
			} else if (c.startsWith('attr(', i)) {
				const j = c.indexOf(')', i);
				if (j < 0) break;
				cur += el.getAttribute(c.slice(i + 5, j).trim().split(/[\s,]+/)[0]) || '';
				i = j + 1;
			} else if (/^(url|counters?|image-set|linear-gradient|radial-gradient)\(/.test(c.slice(i, i + 16))) {
				let depth = 0, j = i;
				for (; j < c.length; j++) {
					if (c[j] === '(') depth++;
					else if (c[j] === ')' && --depth === 0) break;
					else if (c[j] === '"' || c[j] === "'") { const q = c[j]; for (j++; j < c.length && c[j] !== q; j++) if (c[j] === '\\') j++; }
				}
				i = j + 1;
			} else i++;
		}
		// After a '/', cur is the alternative text, which stands for the content.
		if (!cur) return '';
		return ps.display === 'inline' ? cur : ' ' + cur + ' ';
	}

	// pseudoCache keeps each element's ::before and ::after text between
	// reads: asking an element's pseudo styles is the dearest part of a
	// name, and a page is read again and again. A MutationObserver of
	// lyrad's world (the page sees nothing of it), started by the first
	// read (pseudoWatch), forgets what a change may have touched: the
	// changed element's subtree (its class, an attribute attr() or a
	// selector reads, a child added or removed), or everything when that is
	// large or a style sheet changed. Text changes and inline styles do not
	// make content. Elements in shadow roots, which it does not see, are
	// asked every time.
	let pseudoCache = new WeakMap(), pseudoObs = null, pseudoDirty = new Set(), pseudoAll = false;
	function pseudoWatch() {
		if (!pseudoObs) {
			// The page's changes only note where they were; the next read
			// does the forgetting.
			pseudoObs = new MutationObserver((recs) => {
				for (const m of recs) {
					if (m.attributeName === 'style') continue;
					pseudoDirty.add(m.target);
					if (m.type === 'childList' && !pseudoAll) {
						for (const n of [...m.addedNodes, ...m.removedNodes]) if (n.localName === 'style' || n.localName === 'link') pseudoAll = true;
					}
				}
			});
			pseudoObs.observe(document, { subtree: true, childList: true, attributes: true });
			return;
		}
		if (!pseudoDirty.size && !pseudoAll) return;
		let budget = 5000;
		for (const t of pseudoDirty) {
			if (pseudoAll) break;
			if (t === document || t === document.documentElement || t === document.head || t === document.body || t.localName === 'style' || t.localName === 'link') { pseudoAll = true; break; }
			if (t.nodeType !== 1 || !t.isConnected) continue;
			pseudoCache.delete(t);
			const all = t.getElementsByTagName('*');
			if ((budget -= all.length) < 0) { pseudoAll = true; break; }
			for (const e of all) pseudoCache.delete(e);
		}
		if (pseudoAll) pseudoCache = new WeakMap();
		pseudoDirty = new Set();
		pseudoAll = false;
	}

	// transform is text as text-transform draws it.
	function transform(t, tt) {
		switch (tt) {
		case 'uppercase': return t.toUpperCase();
		case 'lowercase': return t.toLowerCase();
		case 'capitalize': return t.replace(/(^|\s)(\S)/g, (m, a, b) => a + b.toUpperCase());
		}
		return t;
	}

	// flatChildren are el's children in the flat tree: a shadow host's
	// shadow root's, a slot's assigned nodes (or its own children when
	// nothing is assigned).
	function flatChildren(el) {
		let k = el.childNodes;
		if (el.shadowRoot) k = el.shadowRoot.childNodes;
		else if (el.localName === 'slot') {
			const a = el.assignedNodes({ flatten: true });
			if (a.length) k = a;
		}
		if (ownedByLeaf(null) && k.length) k = [...k].filter((c) => !leafOwned.has(c));
		return k;
	}

	// leafOwned: the elements that a field, a combobox or a range owns
	// (aria-owns). Chrome moves them into it, where nothing is listed or
	// named, so they are no one's children here. Built once a read (T.read
	// clears it); ownedByLeaf(null) says whether there are any.
	let leafOwned = null;
	function ownedByLeaf(el) {
		if (!leafOwned) {
			leafOwned = new Set();
			for (const o of document.querySelectorAll('[aria-owns]')) {
				if (LEAF.has(role(o))) for (const t of byIds(o, 'aria-owns')) leafOwned.add(t);
			}
		}
		return el ? leafOwned.has(el) : leafOwned.size > 0;
	}

	// nameKids are the children a name is made of: the flat tree's, then
	// what the element owns (aria-owns).
	function nameKids(el) {
		const k = flatChildren(el);
		if (!el.hasAttribute('aria-owns')) return k;
		return [...k, ...byIds(el, 'aria-owns')];
	}

	function states(el, r) {
		const out = [];
		const tag = el.localName;
		if (r === 'heading') {
			let lv = parseInt(el.getAttribute('aria-level'), 10);
			if (!(lv > 0)) lv = /^h[1-6]$/.test(tag) ? +tag[1] : 2;
			out.push('level=' + lv);
		}
		if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio') && !el.hasAttribute('aria-checked')) {
			if (el.indeterminate && el.type === 'checkbox') out.push('mixed');
			else if (el.checked) out.push('checked');
		} else if (r === 'checkbox' || r === 'radio' || r === 'switch' || r === 'menuitemcheckbox' || r === 'menuitemradio' || el.hasAttribute('aria-checked')) {
			const c = el.getAttribute('aria-checked');
			if (c === 'true') out.push('checked');
			else if (c === 'mixed') out.push('mixed');
		}
		if (el.getAttribute('aria-pressed') === 'true') out.push('pressed');
		if (tag === 'option' ? el.selected : el.getAttribute('aria-selected') === 'true') out.push('selected');
		if (el.getAttribute('aria-expanded') === 'true' || (r === 'DisclosureTriangle' && el.parentElement.open)) out.push('expanded');
		if ((el.matches(':disabled')) || el.closest('[aria-disabled="true"]')) out.push('disabled');
		return out;
	}

	function href(el, r) {
		if (r !== 'link') return '';
		if (el.href && typeof el.href === 'object') return el.href.baseVal || ''; // SVG <a>
		return el.href || '';
	}

	// ancestorsHidden: a region inside an aria-hidden or inert subtree.
	function ancestorsHidden(el) {
		for (let p = el.parentElement; p; p = p.parentElement) {
			if (p.getAttribute('aria-hidden') === 'true' || p.inert) return true;
		}
		return false;
	}

	// walk lists el's subtree in flat-tree order.
	function walk(el, out, modal, hidden) {
		const stack = [el];
		const hid = [hidden];
		while (stack.length) {
			const n = stack.pop();
			let h = hid.pop();
			if (n.nodeType !== 1 || SKIP.has(n.tagName)) continue;
			if (n.getAttribute('aria-hidden') === 'true' || n.inert) h = true;
			const r = role(n);
			if (r === 'Iframe') {
				if (!h) {
					const b = n.getBoundingClientRect();
					if (b.width > 0 && b.height > 0 && shown(n)) {
						const cs = getComputedStyle(n);
						const x = b.x + n.clientLeft + parseFloat(cs.paddingLeft), y = b.y + n.clientTop + parseFloat(cs.paddingTop);
						out.frames.push([out.items.length, x, y, n.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight),
							n.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom), T.id(n)]);
					}
				}
				continue;
			}
			if (!h && LISTED.has(r) && !(modal && !modal.contains(n))) {
				{
					const b = box(n);
					if (b && shown(n)) {
						out.items.push([T.id(n), r, name(n, r), states(n, r), href(n, r), b[0], b[1], b[2], b[3]]);
					}
				}
			}
			if (LEAF.has(r) || r === 'combobox') continue;
			const kids = flatChildren(n);
			for (let i = kids.length - 1; i >= 0; i--) {
				if (kids[i].nodeType === 1) {
					stack.push(kids[i]);
					hid.push(h);
				}
			}
		}
	}
`
