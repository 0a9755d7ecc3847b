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
// items: [[id, role, name, states, href, x, y, w, h, value, hint]], frames: [[index, x,
// y, w, h]]} where a frame entry's index is the item position it stands at
// and its box is the frame element's content box; item boxes are in this
// document's viewport coordinates.
//
// With nest set in region, the answer also says where the items stand
// (nest, in document order: [id, up] an item, [id, up, role, name, active]
// a container holding items, [0, up, text] a text in one; up is the id of
// the nearest item or container around it, 0 for none; a container's id is
// negative, save a frame element's, which is its table id) and which
// element has the focus (active: its table id, 0 for none; the deepest, in
// shadow roots). Nothing of it is asked without nest.
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
		leafOwned = errs = labelsBy = null;
		if (document.baseURI !== hrefsBase) {
			hrefs = new Map();
			hrefOf = new WeakMap();
			hrefsBase = document.baseURI;
		}
		pseudoWatch();
		stillWatch(out.vw, out.vh);
		// :modal is a modal dialog or a fullscreen element: the
		// document is searched only when it has either.
		const modal = dialogs.length || document.fullscreenElement ? document.querySelector(':modal') : null;
		nestOut = region && region.nest ? [] : null;
		if (nestOut) nestActive = deepActive();
		contentKept = new Map();
		try {
			walk(root, out, modal, region ? ancestorsHidden(root) : false);
			capItems(out);
			if (nestOut) {
				out.nest = nestKept(out);
				out.active = nestActive ? T.id(nestActive) : 0;
				nestOut = nestActive = null;
			}
		} finally {
			contentKept = null;
		}
		return out;
	};
	// dialogs: the document's dialogs, a live list that the document
	// keeps counted until it changes.
	const dialogs = document.getElementsByTagName('dialog');
	// capItems keeps at most MaxItems items (those on screen first, then
	// the rest in order) and says how many were left out: a page of 200k
	// listed elements is not sent whole.
	const capItems = (out) => {
		const n = out.items.length;
		if (n <= `+maxItemsJS+`) return;
		const keep = new Uint8Array(n);
		let k = 0;
		for (let i = 0; i < n && k < `+maxItemsJS+`; i++) {
			const it = out.items[i];
			if (it[5] < out.vw && it[5] + it[7] > 0 && it[6] < out.vh && it[6] + it[8] > 0) { keep[i] = 1; k++; }
		}
		for (let i = 0; i < n && k < `+maxItemsJS+`; i++) if (!keep[i]) { keep[i] = 1; k++; }
		const at = [];
		let j = 0;
		for (let i = 0; i <= n; i++) { at[i] = j; if (i < n && keep[i]) j++; }
		for (const fr of out.frames) fr[0] = at[fr[0]];
		out.items = out.items.filter((_, i) => keep[i]);
		out.left = n - out.items.length;
	};
	return T.read(region);
`)

// MaxItems bounds the items a tree read lists, in each document and in
// all; the rest are counted, not sent.
const MaxItems = 10000

const maxItemsJS = "10000"

// JSTreeAgain is JSTree by the read function an earlier JSTree left in this
// world; null when there is none (a new document's world).
const JSTreeAgain = `function(region) {
	const T = globalThis.__lyradTree;
	return T && T.read ? T.read(region) : null;
}`

// JSRefNode is the element a table id names, or null when it is gone (the
// world is another one, or the element was removed): callFunctionOn with
// returnByValue false gives its object, for DOM.describeNode.
var JSRefNode = fn("token, id", tableLib+`
	if (token !== T.token) return null;
	const el = T.node(id);
	return el && el.isConnected ? el : null;
`)

// JSNodeID is the table id of the element `this` (for a frame's owner
// element, found by backend node id).
var JSNodeID = fn("", tableLib+`
	return { token: T.token, id: T.id(this) };
`)

// treeLib is what a walk needs: the table and the rules.
const treeLib = tableLib + JSErrorWords + treeRules

// tableLib is the table of element ids alone: what resolving a ref or a
// frame element needs, sent without the rules (compiled on every call).
const tableLib = `
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
`

const treeRules = `

	// The roles the map lists. Chrome's own names for native controls
	// (DisclosureTriangle for <summary>, ColorWell, Date, ...) included.
	const LISTED = new Set(['link', 'button', 'checkbox', 'radio', 'switch', 'textbox', 'searchbox', 'combobox',
		'listbox', 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'slider', 'spinbutton',
		'treeitem', 'heading', 'DisclosureTriangle', 'ColorWell', 'Date', 'DateTime', 'InputTime', 'PopUpButton',
		'ToggleButton']);
	// What the page says back, and dialogs: listed with their text as name
	// (changes.go shows them appear), as is any aria-live region.
	const LIVE = new Set(['alert', 'alertdialog', 'dialog', 'status', 'log']);
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
	// skipped: el's tagName is one of SKIP, asked only of an element
	// whose localName (tag) can give it: the qualified name, uppercased
	// for HTML (an element made by script with a localName of mixed case,
	// "Script", is not skipped).
	const SKIP_TAG = new Set([...SKIP, ...[...SKIP].map((t) => t.toLowerCase())]);
	const skipped = (el, tag) => SKIP_TAG.has(tag) && SKIP.has(el.tagName);

	function focusable(el) {
		return el.tabIndex >= 0 && !el.matches(':disabled') || el.isContentEditable;
	}

	// attrBits says which of the attributes the walk asks of every
	// element el carries, a bit each, from one list of its attribute
	// names: most elements carry none of them (a class, an id), and one
	// question costs less than ten.
	const A_HIDDEN = 1, A_INERT = 2, A_ROLE = 4, A_EDIT = 8, A_HANDLER = 16, A_TABINDEX = 32, A_LIVE = 64, A_CLASS = 128,
		A_STATE = 256, // any attribute states() reads
		A_NAME = 512, // an attribute a name is first looked for in
		A_DISABLED = 1024, A_STYLE = 2048,
		A_ERROR = 4096; // a class attribute that may say an error (ERROR_HINT): errorText asks it further
	const ATTR_BITS = new Map([['aria-hidden', A_HIDDEN], ['inert', A_INERT], ['role', A_ROLE], ['contenteditable', A_EDIT],
		['onclick', A_HANDLER], ['onmousedown', A_HANDLER], ['onpointerdown', A_HANDLER], ['tabindex', A_TABINDEX],
		['aria-live', A_LIVE], ['class', A_CLASS], ['aria-level', A_STATE], ['aria-checked', A_STATE], ['aria-pressed', A_STATE],
		['aria-selected', A_STATE], ['aria-expanded', A_STATE], ['aria-invalid', A_STATE], ['aria-labelledby', A_NAME],
		['aria-labeledby', A_NAME], ['aria-label', A_NAME], ['aria-disabled', A_DISABLED], ['style', A_STYLE]]);
	function attrBits(el) {
		if (!el.hasAttributes()) return 0;
		let b = 0;
		for (const a of el.getAttributeNames()) b |= ATTR_BITS.get(a) || 0;
		if (b & A_CLASS && ERROR_HINT.test(el.getAttribute('class'))) b |= A_ERROR;
		return b;
	}

	// keptBits is attrBits(el) of an element of the document's own tree,
	// kept from read to read until pseudoWatch hears of a change to it or
	// around it: its attributes change only by a mutation the observer
	// hears (a style attribute's too, see pseudoWatch), and a read after
	// a change meets mostly elements that did not change.
	let bitsKept = new WeakMap();
	function keptBits(el) {
		let b = bitsKept.get(el);
		if (b === undefined) bitsKept.set(el, (b = attrBits(el)));
		return b;
	}

	function role(el) {
		return roleOf(el, el.getAttribute('role'));
	}

	// roleOf is role(el) with its role attribute already asked (and,
	// when the caller has it, el's localName: each asking of the page
	// costs, and a walk asks the same few of every element).
	function roleOf(el, attr, tg) {
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
		const tag = tg || el.localName;
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

	// styleOf is el's computed style. The declaration is live (it
	// answers the style as it is when a property is asked), so one is
	// kept for each element from read to read: making it is a good part of
	// what asking a style costs.
	const styles = new WeakMap();
	function styleOf(el) {
		let cs = styles.get(el);
		if (cs === undefined) styles.set(el, (cs = getComputedStyle(el)));
		return cs;
	}

	// shown: laid out, and not visibility:hidden (nor inside content-visibility:hidden).
	function shown(el) {
		// checkVisibility({ visibilityProperty: true }), which is
		// checkVisibility() and a visible visibility: the options
		// dictionary costs as much as the rest, the kept style little.
		return el.checkVisibility ? el.checkVisibility() && styleOf(el).visibility === 'visible' : true;
	}

	// shownBox is box of an element that is shown, else null: shown is
	// asked first, as it costs less than a box (a hidden element's box
	// looks through up to 64 descendants).
	function shownBox(el) {
		return shown(el) ? box(el) : null;
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
	// in a name: U+00A0 is kept. A text with nothing to collapse (most
	// names and attributes) is only looked at (SP_WORK).
	const SP_WORK = /[\t\n\r\f]| {2}|^ | $/;
	const sp = (s) => {
		if (!s) return '';
		s = String(s);
		return SP_WORK.test(s) ? s.replace(/[ \t\n\r\f]+/g, ' ').replace(/^ | $/g, '') : s;
	};

	// name is the accessible name of el in role r (accname 1.2, as Chrome
	// computes it for the roles the map lists). cx is the computation's
	// state: the element named (root), the nodes already reached through
	// aria-labelledby (visited: a node met again adds nothing), whether
	// hidden nodes count (hiddenOK: inside a hidden labelledby target), and
	// whether the walk is inside aria-labelledby (inLb: nested ones are not
	// followed). What the caller already knows saves asking the page:
	// shown, the root is shown (so its visibility is visible); doc, the
	// nodes the computation is at are of the document's own tree (not a
	// shadow tree's), which it keeps as it goes.
	//
	// cx.st.nc is set when the name read what no MutationObserver hears of
	// (a control's value, a shadow tree): such a name is not kept.
	function name(el, r) {
		return ownName(el, r, nameCx(el, { nc: false }, false, false), false);
	}

	function nameCx(el, st, shown, doc) {
		// visited null: the root alone (a Set is made at the first labelledby).
		return { root: el, visited: null, hiddenOK: false, inLb: false, st, shown, doc };
	}

	// keptName is name(el, r), kept while the page stands still
	// (stillWatch) for an element of the document's own tree (light: not
	// in a shadow tree, no shadow root). known: el is shown.
	// ab, when the caller has it, is el's attrBits.
	function keptName(el, r, light, known, ab) {
		if (!light) return ownName(el, r, nameCx(el, { nc: false }, known, false), false, ab);
		const k = stillNames.get(el);
		if (k !== undefined && k[0] === r) return k[1];
		const st = { nc: false };
		const s = ownName(el, r, nameCx(el, st, known, true), false, ab);
		if (!st.nc) stillNames.set(el, [r, s]);
		return s;
	}

	// ab, when the caller has it, is el's attrBits: its aria-labelledby
	// and aria-label are asked only when it has one (A_NAME).
	function ownName(el, r, cx, skipLb, ab) {
		const na = ab === undefined || (ab & A_NAME) !== 0;
		if (!skipLb && na) {
			const lb = labelledBy(el);
			if (lb.length) {
				// A reference to itself is its name without aria-labelledby.
				const s = sp(lb.map((t) => t === el ? ownName(el, r, cx, true) : lbText(t, cx)).join(' '));
				if (s) return s;
			}
		}
		const al = na ? sp(el.getAttribute('aria-label')) : '';
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
			const lbs = labelsOf(el, cx.doc);
			if (lbs && lbs.length) {
				const s = sp([...lbs].map((l) => textAlt(l, cx, false)).join(' '));
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
			const img = el.firstElementChild && el.querySelector('img[title], svg title');
			if (img) return sp(img.getAttribute ? img.getAttribute('title') || img.textContent : '');
		}
		return '';
	}

	// labelsOf is el.labels; for an element of the document's own tree
	// (doc), from one pass a read over the document's labels (labelsBy,
	// which T.read clears): after any change to the document the browser
	// answers each field's el.labels by going through the whole document
	// again, a form's fields times its elements.
	let labelsBy = null;
	const docLabels = document.getElementsByTagName('label'), NO_LABELS = [];
	function labelsOf(el, doc) {
		if (!doc) return el.labels;
		if (!labelsBy) {
			labelsBy = new Map();
			for (const l of docLabels) {
				const c = l.control;
				if (!c) continue;
				const a = labelsBy.get(c);
				if (a) a.push(l);
				else labelsBy.set(c, [l]);
			}
		}
		return labelsBy.get(el) || NO_LABELS;
	}

	// hiddenForText: el is not rendered (display:none, visibility:hidden,
	// content-visibility) or is inside aria-hidden. A display:contents
	// element has no box of its own but is as shown as its parent.
	function hiddenForText(el) {
		if (el.closest('[aria-hidden="true"]')) return true;
		let e = el;
		while (e && styleOf(e).display === 'contents') e = e.parentElement || e.getRootNode().host;
		return !!e && e.checkVisibility && !e.checkVisibility({ visibilityProperty: true });
	}

	// lbText is the text of an aria-labelledby target: hidden nodes inside a
	// hidden target count, a target already reached adds nothing.
	function lbText(t, cx) {
		contentTied++;
		if (!cx.visited) cx.visited = new Set([cx.root]);
		if (cx.visited.has(t)) return '';
		cx.visited.add(t);
		const inner = { root: cx.root, visited: cx.visited, hiddenOK: cx.hiddenOK || hiddenForText(t), inLb: true, st: cx.st, shown: false, doc: cx.doc };
		return textAlt(t, inner, true);
	}

	// textAlt is the text alternative of a node met while naming another:
	// through aria-labelledby (direct: the target itself) or content.
	//
	// cs and d, when the caller has them, are el's computed style and its
	// display: each style property asked costs, so none is asked twice.
	function textAlt(el, cx, direct, cs, d, tg) {
		if (el === cx.root || (!direct && cx.visited && cx.visited.has(el))) {
			contentTied++;
			return '';
		}
		cs = cs || styleOf(el);
		if (!cx.hiddenOK) {
			if (d === undefined) d = cs.display;
			if (d === 'none' || el.getAttribute('aria-hidden') === 'true') return '';
			// An element around a root known shown (a label around its
			// field) has a box, or is display:contents: a shown element's
			// ancestors all are one or the other.
			if (d !== 'contents' && el.checkVisibility && !(cx.shown && el.contains(cx.root)) && !el.checkVisibility()) return '';
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
		const tag = tg || el.localName;
		if (tag === 'slot') return content(el, cx, cs, vis, tag);
		const r = roleOf(el, el.getAttribute('role'), tag);
		if (vis) {
			// An embedded control gives its value (before its aria-label, as Chrome).
			const v = controlValue(el, r, tag);
			if (v !== null) {
				cx.st.nc = true; // a value changes with no mutation
				return sp(v);
			}
		}
		if (!direct && NO_CONTENT.has(r)) return '';
		if (vis) {
			const al = sp(el.getAttribute('aria-label'));
			if (al) return al;
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
		return content(el, cx, cs, vis, tag, LISTED.has(r));
	}

	// controlValue is what an embedded control gives a name it sits in: a
	// field's value, a select's or listbox's chosen option, a range's value;
	// null for what is not such a control.
	function controlValue(el, r, tg) {
		const tag = tg || el.localName;
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
	//
	// textOK, when the caller has it, is whether el's own text shows (its
	// visibility); text-transform is asked only of an element with text.
	// kept false: el's text is not one asked again in this read (only a
	// root's, or a listed role's, is: a link in a heading, in a row).
	function content(el, cx, cs, textOK, tg, kept) {
		// content(el, seenSet, false), as callers outside naming have it.
		if (cx instanceof Set) cx = { root: el, visited: cx, hiddenOK: false, inLb: false, st: { nc: false }, shown: false, doc: false };
		// A shadow tree's changes are not heard.
		const tag = tg || el.localName;
		const flat = !!el.shadowRoot || tag === 'slot';
		if (flat) cx.st.nc = true;
		// A shown root's visibility is visible; the style is asked only
		// of what is not known.
		if (textOK === undefined) textOK = cx.hiddenOK || (cx.shown && el === cx.root) || (cs = cs || styleOf(el)).visibility === 'visible';
		// The same element's text is asked again in one read (a link in
		// a heading, a row's link): what did not depend on the name being
		// made is kept (contentKept).
		const keep = contentKept !== null && kept !== false && textOK && !cx.hiddenOK && !cx.inLb && (!cx.visited || cx.visited.size === 1);
		if (keep) {
			const k = contentKept.get(el);
			if (k !== undefined && (el === cx.root || !el.contains(cx.root))) {
				if (k[1]) cx.st.nc = true;
				return k[0];
			}
		}
		const tied = contentTied, nc = cx.st.nc;
		cx.st.nc = false;
		let tt = null;
		const pc = pseudo(el, cx.doc);
		let s = pc[0];
		const closed = tag === 'details' && !el.open;
		// The DOM's own children, by their siblings (a node list costs
		// more to go through), save where the flat tree or aria-owns
		// makes them others.
		const kids = flat || ownedByLeaf(null) || el.hasAttribute('aria-owns') ? nameKids(el) : null;
		if (kids) contentTied++;
		// A shadow root's or a slot's nodes are not known to be the document's.
		const doc = cx.doc;
		if (flat) cx.doc = false;
		for (let i = 0, c = kids ? kids[0] : el.firstChild; c; c = kids ? kids[++i] : c.nextSibling) {
			if (c.nodeType === 3) {
				if (!closed && textOK) {
					if (tt === null) tt = (cs || (cs = styleOf(el))).textTransform;
					s += transform(c.data, tt);
				}
			} else if (c.nodeType === 1) {
				const ct = c.localName;
				if (skipped(c, ct)) continue;
				if (ct === 'br') { s += ' '; continue; }
				if (closed && ct !== 'summary') continue;
				// The element named, inside its own label, gives nothing but its box's space.
				if (c === cx.root) { s += ' '; contentTied++; continue; }
				const ccs = styleOf(c);
				const d = ccs.display;
				const t = textAlt(c, cx, false, ccs, d, ct);
				// Inline text runs on; a box of its own (a block, an
				// inline-block, a replaced element: an image, an svg, a
				// control) is set apart, even one that gives no text.
				if (d === 'none') { s += t; continue; } // no box: counts only inside a hidden labelledby target
				s += (d === 'inline' && !REPLACED.has(ct)) || d === 'contents' ? t : ' ' + t + ' ';
			}
		}
		cx.doc = doc;
		s += pc[1];
		if (keep && contentTied === tied) contentKept.set(el, [s, cx.st.nc]);
		cx.st.nc = cx.st.nc || nc;
		return s;
	}

	// contentKept keeps, for one read (T.read sets it), content(el) as
	// met where el's text shows and the name being made is no
	// labelledby's, by element: [text, whether it read what no mutation
	// tells]. contentTied counts what ties a content to the name being
	// made (its root met, a labelledby followed, an element already
	// reached) or to more than the element's own subtree (the flat tree,
	// aria-owns); a content during which it moved is not kept. A kept
	// content serves a name whose root is not inside the element.
	let contentKept = null, contentTied = 0;

	// pseudo is the text CSS generates in el's ::before and ::after (its
	// alternative text when the content has one: content: "x" / "alt"),
	// as [before, after].
	// doc: el is known to be of the document's tree.
	const NO_PSEUDO = ['', ''];
	function pseudo(el, doc) {
		const cached = doc || el.getRootNode() === document;
		// No rule of the document's gives it content: nothing to ask.
		if (cached) {
			const ps = sheetCandidates().pseudo;
			if (ps && !ps.has(el)) return NO_PSEUDO;
		}
		let pc = cached && pseudoCache.get(el);
		if (!pc) {
			pc = [pseudoText(el, '::before'), pseudoText(el, '::after')];
			if (cached) pseudoCache.set(el, pc);
		}
		return pc;
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
				stillDirty = true;
				for (const m of recs) {
					if (m.attributeName === 'style') {
						// Whether it is there is in its attrBits (A_STYLE).
						bitsKept.delete(m.target);
						continue;
					}
					pseudoDirty.add(m.target);
					if (m.type === 'childList' || m.attributeName === 'aria-owns' || m.attributeName === 'aria-invalid') refs = null;
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
			hrefOf.delete(t);
			bitsKept.delete(t);
			const all = t.getElementsByTagName('*');
			if ((budget -= all.length) < 0) { pseudoAll = true; break; }
			for (const e of all) {
				pseudoCache.delete(e);
				hrefOf.delete(e);
				bitsKept.delete(e);
			}
		}
		if (pseudoAll) {
			pseudoCache = new WeakMap();
			hrefOf = new WeakMap();
			bitsKept = new WeakMap();
		}
		pseudoDirty = new Set();
		pseudoAll = false;
	}

	// What a read keeps while the page stands still, for the next read:
	// names (stillNames), each element's cursor and display (stillStyle)
	// and the style sheets' candidates (sheetCands). A read of a page that
	// has not moved since the last one, the most common read of all (a
	// page read again, in parts, or waited on), so costs little more than
	// finding the boxes. Any change to the document (pseudoWatch's
	// observer), any input that may move :hover, :focus, :checked or a
	// value (events heard in lyrad's world, which the page does not see),
	// another window size or another set of style sheets drops it all.
	//
	// stillStyle, which has an entry for most of the document's elements,
	// is not made anew when it is dropped: its entries are numbers, the
	// style bits (0-7) over stillBase, and dropping them moves stillBase
	// past them all (overwriting an entry costs less than adding one to
	// a new table, which grows as it fills).
	let stillNames = new WeakMap(), stillSecret = new WeakMap(), stillClicks = new WeakMap(), stillHints = new WeakMap(), stillStyle = new WeakMap(), stillBase = 0, stillDirty = true, stillOn = false;
	const STILL_EVENTS = ['mouseover', 'mouseout', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'click', 'focusin',
		'focusout', 'input', 'change', 'keydown', 'keyup', 'hashchange', 'popstate', 'resize', 'load', 'toggle',
		'transitionstart', 'transitionend', 'animationstart', 'animationend', 'animationiteration', 'fullscreenchange'];
	const foreignSheets = new WeakSet();
	// stillSig is what the kept things were read under, number by
	// number (no string made a read): the window's size (w, h: T.read's
	// innerWidth and innerHeight) and pixel ratio, the adopted sheets'
	// count, and each sheet's rules (-1 unreadable; disabled, -3 - that).
	const stillSig = [];
	// stillSheets and stillAdopted are the document's style sheets and
	// its adopted ones as stillWatch found them this read, for
	// sheetCandidates (asking the document again costs as much).
	const stillSheets = [];
	let stillAdopted = [];
	function stillWatch(w, h) {
		if (!stillOn) {
			stillOn = true;
			const moved = () => { stillDirty = true; };
			for (const e of STILL_EVENTS) addEventListener(e, moved, { capture: true, passive: true });
		}
		let same = !stillDirty, i = 0;
		const put = (v) => {
			if (stillSig[i] !== v) { same = false; stillSig[i] = v; }
			i++;
		};
		const ad = document.adoptedStyleSheets;
		stillAdopted = ad || [];
		put(w); put(h); put(devicePixelRatio); put(ad ? ad.length : 0);
		const ss = document.styleSheets, m = ss.length;
		stillSheets.length = m;
		for (let j = 0; j < m; j++) {
			const sh = ss[j];
			stillSheets[j] = sh;
			let n = -1;
			// Another origin's sheet stays unreadable: it is asked once
			// (a thrown error costs more than the rest of this).
			if (!foreignSheets.has(sh)) {
				try { n = sh.cssRules.length; } catch (e) { foreignSheets.add(sh); }
			}
			put(sh.disabled ? -3 - n : n);
		}
		if (stillSig.length !== i) { same = false; stillSig.length = i; }
		if (!same) {
			stillNames = new WeakMap();
			stillClicks = new WeakMap();
			stillSecret = new WeakMap();
			stillHints = new WeakMap();
			stillBase += 8;
			sheetCands = null;
			stillDirty = false;
		}
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
			for (const o of ariaRefs().owners) {
				if (LEAF.has(role(o))) for (const t of byIds(o, 'aria-owns')) leafOwned.add(t);
			}
		}
		return el ? leafOwned.has(el) : leafOwned.size > 0;
	}

	// ariaRefs are the document's elements with aria-owns (owners) and
	// with aria-invalid=true (invalid): one pass over the document for
	// what two questions ask, kept until pseudoWatch's observer hears of
	// an element added or removed or of one of the two attributes changed.
	let refs = null;
	function ariaRefs() {
		if (!refs) {
			refs = { owners: [], invalid: [] };
			for (const e of document.querySelectorAll('[aria-owns], [aria-invalid=true]')) {
				if (e.hasAttribute('aria-owns')) refs.owners.push(e);
				if (e.getAttribute('aria-invalid') === 'true') refs.invalid.push(e);
			}
		}
		return refs;
	}

	// nameKids are the children a name is made of: the flat tree's, then
	// what the element owns (aria-owns).
	function nameKids(el) {
		const k = flatChildren(el);
		if (!el.hasAttribute('aria-owns')) return k;
		return [...k, ...byIds(el, 'aria-owns')];
	}

	// dis, when the caller knows it (a walk, of an element of the
	// document's own tree, whose way down from the root is its ancestors),
	// is whether el or an ancestor holds aria-disabled=true; else it is
	// looked for. ab, when the caller has it, is el's attrBits (its aria
	// state attributes are asked only when it has one), tg its localName.
	function states(el, r, dis, ab, tg) {
		const out = [];
		const tag = tg || el.localName;
		const aa = ab === undefined || (ab & A_STATE) !== 0;
		if (r === 'heading') {
			let lv = aa ? parseInt(el.getAttribute('aria-level'), 10) : NaN;
			if (!(lv > 0)) lv = /^h[1-6]$/.test(tag) ? +tag[1] : 2;
			out.push('level=' + lv);
		}
		if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio') && !(aa && el.hasAttribute('aria-checked'))) {
			if (el.indeterminate && el.type === 'checkbox') out.push('mixed');
			else if (el.checked) out.push('checked');
		} else if (r === 'checkbox' || r === 'radio' || r === 'switch' || r === 'menuitemcheckbox' || r === 'menuitemradio' || (aa && el.hasAttribute('aria-checked'))) {
			const c = aa ? el.getAttribute('aria-checked') : null;
			if (c === 'true') out.push('checked');
			else if (c === 'mixed') out.push('mixed');
		}
		if (aa && el.getAttribute('aria-pressed') === 'true') out.push('pressed');
		if (tag === 'option' ? el.selected : aa && el.getAttribute('aria-selected') === 'true') out.push('selected');
		if ((aa && el.getAttribute('aria-expanded') === 'true') || (r === 'DisclosureTriangle' && el.parentElement.open)) out.push('expanded');
		if (el.matches(':disabled') || (dis !== undefined ? dis : el.closest('[aria-disabled="true"]'))) out.push('disabled');
		if (aa && el.getAttribute('aria-invalid') === 'true') out.push('invalid');
		return out;
	}

	// hrefs: a link's URL by its href attribute, while the document's
	// base URL stays (T.read starts anew when it moves): resolving and
	// serialising a URL is a link's dearest part, and a page's links
	// stay when the rest changes. hrefOf has it by element, for one of
	// the document's own tree (light), until pseudoWatch hears of a
	// change to it or around it: asking the attribute, and hashing a long
	// URL to look it up, cost more than the rest of a link but its box.
	let hrefs = new Map(), hrefsBase = '', hrefOf = new WeakMap();
	function href(el, r, light) {
		if (r !== 'link') return '';
		if (light) {
			const k = hrefOf.get(el);
			if (k !== undefined) return k;
			const h = linkURL(el);
			hrefOf.set(el, h);
			return h;
		}
		return linkURL(el);
	}
	function linkURL(el) {
		const html = el instanceof HTMLAnchorElement || el instanceof HTMLAreaElement;
		const raw = html ? el.getAttribute('href') : null;
		if (raw !== null) {
			const h = hrefs.get(raw);
			if (h !== undefined) return h;
		}
		// Asked once: each read of href serialises the URL again.
		const h = el.href;
		if (h && typeof h === 'object') return h.baseVal || ''; // SVG <a>
		if (raw !== null) {
			if (hrefs.size >= 20000) hrefs = new Map();
			hrefs.set(raw, h || '');
		}
		return h || '';
	}

	// ancestorsHidden: a region inside an aria-hidden or inert subtree.
	function ancestorsHidden(el) {
		for (let p = el.parentElement; p; p = p.parentElement) {
			if (p.getAttribute('aria-hidden') === 'true' || p.inert) return true;
		}
		return false;
	}

	// said lists a dialog, an alert, a status, a log or an aria-live
	// region, named by its own name or else its text; one with no text
	// says nothing and is left out, save a dialog. A field's error message
	// in common markup is listed too, with state error: what an invalid
	// field (aria-invalid) names as its aria-errormessage or
	// aria-describedby, or an element of an error class holding no control.
	// ab is n's attrBits.
	// dis as states'.
	function said(n, r, out, light, ab, dis) {
		const lv = ab & A_LIVE ? n.getAttribute('aria-live') : null;
		const live = lv === 'polite' || lv === 'assertive';
		const err = !LIVE.has(r) && !live && errorText(n, out, ab);
		if (!LIVE.has(r) && !live && !err) return;
		const b = shownBox(n);
		if (!b) return;
		const text = keptName(n, r, light, true, ab) || sp(n.innerText).slice(0, 200);
		if (!text && r !== 'dialog' && r !== 'alertdialog') return;
		const st = states(n, r, dis, ab);
		if (live && !LIVE.has(r)) st.push('live=' + lv);
		if (err) st.push('error');
		out.items.push([T.id(n), r, text, st, '', b[0], b[1], b[2], b[3], '', null]);
	}

	// errs is, per read (T.read clears it), the elements invalid fields
	// name as their errors.
	let errs = null;
	function errorText(n, out, ab) {
		if (!errs) {
			errs = new Set();
			for (const f of ariaRefs().invalid) {
				for (const t of [...byIds(f, 'aria-errormessage'), ...byIds(f, 'aria-describedby')]) errs.add(t);
			}
		}
		if (errs.has(n)) return true;
		return (ab & A_ERROR) !== 0 && saysError(n) && !n.querySelector('input, select, textarea, button, [role=textbox]') && !n.closest('label');
	}


	// Context flags a walk carries down to a node's children.
	const F_HID = 1, // aria-hidden or inert
		F_PTR = 2, // the parent's cursor is pointer
		F_NATIVE = 4, // inside an item listed by its role (a link, a button): nothing inside is listed as clickable
		F_CLICK = 8, // inside an element listed as clickable
		F_ICON = 16, // inside an icon listed as clickable
		F_SHADOW = 32, // inside a shadow tree (styled by sheets of its own)
		F_SVG = 64, // inside an <svg>: its shapes are drawn, not clicked (the svg or its link is)
		F_PDOM = 128, // the node's parent is the element whose children the walk took it from
		F_PMENU = 256, // with F_PDOM: the parent's role attribute is menu, menubar or listbox (MENU_ROLE)
		F_DISABLED = 512; // the node or an ancestor holds aria-disabled=true
	const MENU_ROLE = /^(?:menu|menubar|listbox)$/;
	// SVG_HIDDEN: what an <svg> holds that is never drawn where it stands.
	const SVG_HIDDEN = new Set(['defs', 'symbol', 'clipPath', 'mask', 'pattern', 'linearGradient', 'radialGradient',
		'filter', 'marker', 'title', 'desc', 'metadata', 'style', 'script']);

	// ICON_CLASS finds an icon's name in a class token: icon-trash, fa-star,
	// glyphicon-remove, bi-x, mdi-delete, trash-icon.
	const ICON_PRE = /^(?:icons?|ico|ic|fa[srlbdk]?|glyphicon|bi|mdi|octicon|ti|la|gg|lni|ri|bx|ph|feather|material-icons)[-_]+([a-z][a-z0-9_-]*)$/i;
	const ICON_POST = /^([a-z][a-z0-9_-]*?)[-_]+(?:icon|ico)$/i;
	const ICON_NOISE = /^(?:lg|sm|xs|xl|[0-9]+x|fw|solid|regular|light|thin|brands|outline|outlined|filled|round|rounded|sharp|large|small|button|btn|wrapper|wrap|container|inner|only|default|primary|secondary)$/i;
	// iconOf looks at el and its first 6 descendant elements, in tree
	// order (by their element links: no tree walker made), and stops at
	// the first class attribute that names an icon.
	function iconOf(el) {
		for (let c = el, n = 0; c && n <= 6; n++) {
			const cl = c.getAttribute('class');
			if (cl) {
				const ic = iconOfClass(cl);
				if (ic) return ic;
			}
			// The next element in tree order inside el.
			let nx = c.firstElementChild;
			while (!nx && c !== el) {
				nx = c.nextElementSibling;
				if (!nx) c = c.parentElement;
			}
			c = nx;
		}
		return '';
	}
	// iconOfClass is the icon a class attribute names, '' for none; the
	// same classes come again and again (a site's link styles), so each
	// attribute's answer is kept.
	const iconClasses = new Map();
	function iconOfClass(cl) {
		let ic = iconClasses.get(cl);
		if (ic !== undefined) return ic;
		ic = '';
		// Every icon class has a - or a _ (fa-star, trash_icon).
		if (/[-_]/.test(cl)) {
			for (const tok of cl.split(/\s+/)) {
				const m = ICON_PRE.exec(tok) || ICON_POST.exec(tok);
				if (m && !ICON_NOISE.test(m[1])) { ic = m[1].toLowerCase().replace(/_/g, '-').slice(0, 40); break; }
			}
		}
		if (iconClasses.size >= 5000) iconClasses.clear();
		iconClasses.set(cl, ic);
		return ic;
	}

	// wordOf is a readable id or class of a nameless clickable (a
	// "hamburger", a "close-btn"): not a generated one (css-1x2y3z).
	function wordOf(el) {
		for (const tok of [el.id, ...(el.classList || [])]) {
			if (tok && tok.length <= 30 && /^[a-z][a-z_-]*[a-z]$/i.test(tok) && /[aeiou]/i.test(tok)) return tok;
		}
		return '';
	}

	// POPUP: a list whose class or id says it drops down or suggests.
	const POPUP = /autocomplete|autosuggest|suggest|typeahead|dropdown|listbox|popup|popover|combobox|menu|results/i;
	function popupList(p, memo) {
		if (!p || p === document.body) return false;
		let v = memo.get(p);
		if (v !== undefined) return v;
		v = popupLike(p);
		memo.set(p, v);
		return v;
	}
	function popupLike(p) {
		const pr = p.getAttribute('role');
		if (pr === 'listbox' || pr === 'menu' || pr === 'menubar') return true;
		if (p.localName !== 'ul' && p.localName !== 'ol') return false;
		const pos = styleOf(p).position;
		if (pos === 'absolute' || pos === 'fixed') return true;
		return POPUP.test((p.getAttribute('class') || '') + ' ' + p.id);
	}

	// secret: a field whose value must never leave the page (a password,
	// a card's number or code), shown only as filled.
	// keptSecret is secret(el), kept as keptName keeps a name (its type,
	// its autocomplete and its style say it).
	function keptSecret(el, light) {
		if (!light) return secret(el);
		let k = stillSecret.get(el);
		if (k === undefined) stillSecret.set(el, (k = secret(el)));
		return k;
	}

	function secret(el) {
		if (el.localName === 'input' && (el.type || '').toLowerCase() === 'password') return true;
		const ac = (el.getAttribute('autocomplete') || '').toLowerCase();
		if (/(?:^|\s)(?:current-password|new-password|cc-number|cc-csc)(?:\s|$)/.test(ac)) return true;
		const ts = styleOf(el).webkitTextSecurity;
		return !!ts && ts !== 'none';
	}

	// value is a field's current value, as it shows: "" for what has none
	// (checkboxes give states instead).
	function value(el, r) {
		const tag = el.localName;
		let v = '';
		if (tag === 'input') {
			switch ((el.type || 'text').toLowerCase()) {
			case 'checkbox': case 'radio': case 'button': case 'submit': case 'reset': case 'image': case 'hidden':
				return '';
			case 'file':
				return el.files ? [...el.files].map((f) => f.name).join(', ') : '';
			}
			v = el.value;
		} else if (tag === 'textarea') {
			v = el.value;
		} else if (tag === 'select') {
			return sp([...el.selectedOptions].map((o) => sp(o.label || o.textContent)).join(', ')).slice(0, 200);
		} else if (r === 'slider' || r === 'spinbutton' || r === 'progressbar') {
			v = el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || '';
		} else if (LEAF.has(r)) {
			const inp = r === 'combobox' && el.querySelector('input:not([type=hidden]), textarea');
			v = inp ? inp.value : (el.getAttribute('aria-valuetext') || el.innerText || '');
		} else {
			return '';
		}
		return String(v || '').slice(0, 200);
	}

	// near is the text a person reads as an unlabelled field's label: the
	// nearest text before it (a text node, a sibling cell or block above),
	// or after it for a checkbox or radio; none across another control.
	const FIELD = new Set(['textbox', 'searchbox', 'combobox', 'listbox', 'spinbutton', 'slider', 'checkbox', 'radio',
		'switch', 'Date', 'DateTime', 'InputTime', 'ColorWell']);
	const CONTROL = 'input:not([type=hidden]), select, textarea, button';
	// NEAR_STOP: what a field's near text is not taken across (another
	// control, a link, anything focusable or editable).
	const NEAR_STOP = CONTROL + ', a[href], [tabindex]:not([tabindex^="-"]), [contenteditable]:not([contenteditable=false])';
	function near(el, r) {
		const after = r === 'checkbox' || r === 'radio' || r === 'switch';
		const look = (cur, dir) => {
			for (let up = 0; up < 4 && cur && cur !== document.body; up++) {
				for (let s = dir ? cur.nextSibling : cur.previousSibling; s; s = dir ? s.nextSibling : s.previousSibling) {
					if (s.nodeType === 3) {
						const t = sp(s.data);
						if (t) return t;
						continue;
					}
					if (s.nodeType !== 1 || SKIP.has(s.tagName)) continue;
					if (s.matches(NEAR_STOP) || s.querySelector(NEAR_STOP)) return '';
					if (!shown(s)) continue;
					const lines = String(s.innerText || '').split('\n').map(sp).filter(Boolean);
					if (lines.length) return dir ? lines[0] : lines[lines.length - 1];
				}
				cur = cur.parentElement;
				if (cur && (cur.localName === 'form' || cur.localName === 'fieldset')) break;
			}
			return '';
		};
		const t = (after && look(el, true)) || look(el, false);
		return t.length <= 60 ? t : '';
	}

	// clickable tells why an element that no role lists is one to click:
	// its cursor, its onclick, its tabindex, being editable, a hidden
	// control's label, an item of an open list, or a cover over the page.
	// '' when it is none of them.
	// ab is n's attrBits.
	// cover() is the cover over the window (findCover), asked of the
	// page the first time it is needed.
	const STYLE_CURSOR = /cursor/i; // [style*="cursor" i]
	function clickable(n, r, ptr, flags, memo, cover, cands, ab, tag) {
		if (flags & (F_NATIVE | F_ICON)) return '';
		if (tag === 'body' || tag === 'html') return '';
		if (ab & A_HANDLER) return 'click'; // onclick, onmousedown, onpointerdown
		if (ptr && !(flags & F_PTR)) return 'click';
		if (ptr && (flags & F_CLICK)) {
			// Inside a clickable row: a control of its own (a star, a
			// trash can) is an icon a style rule of its own points at, or
			// one with no words (empty, or a glyph such as ☆) that a
			// title, a label or a class names.
			const t = (n.textContent || '').trim();
			const own = cands ? cands.has(n) || ((ab & A_STYLE) !== 0 && STYLE_CURSOR.test(n.getAttribute('style') || '')) : false;
			if (own && t.length <= 30) return 'icon';
			if (!/[\p{L}\p{N}]/u.test(t) && t.length <= 3 &&
				(n.hasAttribute('title') || n.hasAttribute('aria-label') || iconOf(n) || (own && wordOf(n)))) return 'icon';
		}
		if (flags & F_CLICK) return '';
		if (ab & A_TABINDEX && n.tabIndex >= 0 && !NO_CONTENT.has(r) && !scrolls(n)) return 'click';
		// The parent's role attribute, as the walk passed it down (F_PDOM) or asked.
		if (tag === 'li' || !(flags & F_PDOM) || (flags & F_PMENU)) {
			const p = n.parentElement;
			if (p && (tag === 'li' || (flags & F_PDOM) || MENU_ROLE.test(p.getAttribute('role') || '')) && popupList(p, memo)) return 'click';
		}
		if (n === cover()) return 'click';
		return '';
	}

	// The nested form (T.read's nest): nestOut gathers, while a walk
	// runs, its records in document order; nestActive is the element with
	// the focus. Both are null without nest, and nothing below is asked.
	let nestOut = null, nestActive = null;

	// NEST: the containers the nested form shows, by role: those
	// Playwright's aria snapshot shows with one, that tell where an item
	// stands (a site's navigation, a list, a table's row, a form, a dialog).
	const NEST = new Set(['banner', 'navigation', 'main', 'contentinfo', 'complementary', 'region', 'form', 'search',
		'dialog', 'alertdialog', 'group', 'list', 'listitem', 'table', 'grid', 'treegrid', 'row', 'cell', 'gridcell',
		'columnheader', 'rowheader', 'menu', 'menubar', 'tablist', 'tabpanel', 'toolbar', 'tree', 'radiogroup',
		'article', 'paragraph', 'figure', 'blockquote', 'status', 'alert', 'log', 'note']);
	const CELLS = new Set(['cell', 'gridcell', 'columnheader', 'rowheader']);
	// LANDMARK_STOP: inside one of these, a header or a footer is no banner
	// or contentinfo (HTML-AAM).
	const LANDMARK_STOP = 'article, aside, main, nav, section, [role=article], [role=complementary], [role=main], [role=navigation], [role=region]';
	const explicitName = (n) => n.hasAttribute('aria-label') || n.hasAttribute('aria-labelledby') || n.hasAttribute('title');

	// nestRole is the role n is shown with as a container, '' when it is
	// none. r is role(n), which leaves the roles no rule of the map needs
	// (a list, a row, a paragraph) generic.
	function nestRole(n, r) {
		const tag = n.localName;
		if (r === 'generic') {
			if (n.hasAttribute('role')) return '';
			switch (tag) {
			case 'ul': case 'ol': return 'list';
			case 'li': return 'listitem';
			case 'table': return 'table';
			case 'tr': return 'row';
			case 'td': {
				const t = n.closest('table'), tr = t && t.getAttribute('role');
				return tr === 'grid' || tr === 'treegrid' ? 'gridcell' : 'cell';
			}
			case 'th': return /^row/.test(n.getAttribute('scope') || '') ? 'rowheader' : 'columnheader';
			case 'p': return 'paragraph';
			case 'details': case 'optgroup': return 'group';
			case 'section': return explicitName(n) ? 'region' : '';
			case 'footer': return n.parentElement && n.parentElement.closest(LANDMARK_STOP) ? '' : 'contentinfo';
			}
			return '';
		}
		if (!NEST.has(r)) return '';
		if (!n.hasAttribute('role')) {
			if (tag === 'header' && n.parentElement && n.parentElement.closest(LANDMARK_STOP)) return '';
			if (tag === 'form' && !explicitName(n)) return '';
		}
		return r;
	}

	// deepActive is the element with the focus in this document, in the
	// shadow roots it is inside; null when it is the document's body.
	function deepActive() {
		let a = document.activeElement;
		while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
		return a && a !== document.body && a !== document.documentElement ? a : null;
	}

	// nestKept is what a nest read answers of its records: the containers
	// that hold an item listed (or a frame element), named by their own
	// name, with their texts; and in a row that holds one, every cell,
	// named by its text (what tells one row from the next). Each record's
	// up is the nearest item or container shown around it.
	function nestKept(out) {
		const recs = nestOut;
		const upOf = new Map(), roleOf = new Map();
		for (const r of recs) {
			if (r[0]) upOf.set(r[0], r[1]);
			if (r.length === 5) roleOf.set(r[0], r[2]);
		}
		const listed = new Set();
		for (const it of out.items) listed.add(it[0]);
		const keep = new Set(), cells = new Set();
		const mark = (id) => { for (; id && !keep.has(id); id = upOf.get(id)) keep.add(id); };
		for (const id of listed) mark(id);
		for (const fr of out.frames) mark(fr[5]);
		for (const r of recs) {
			if (r.length === 5 && !keep.has(r[0]) && CELLS.has(r[2]) && keep.has(r[1]) && roleOf.get(r[1]) === 'row') {
				keep.add(r[0]);
				cells.add(r[0]);
			}
		}
		// An item left out (a double, one past the cap) is not shown: what
		// it held stands in what held it.
		const shown = (id) => {
			while (id && !(keep.has(id) && (listed.has(id) || roleOf.has(id)))) id = upOf.get(id);
			return id || 0;
		};
		const res = [];
		for (const r of recs) {
			if (r.length === 3) {
				const t = keep.has(r[1]) && !cells.has(r[1]) ? sp(r[2].data) : '';
				if (t) res.push([0, r[1], cut(t, 160)]);
			} else if (!keep.has(r[0])) {
				continue;
			} else if (r.length === 2) {
				if (listed.has(r[0])) res.push([r[0], shown(r[1])]);
			} else {
				const el = r[3];
				const nm = cells.has(r[0]) ? cut(sp(el.innerText), 80) : r[2] === 'iframe' ? '' : name(el, 'group');
				res.push([r[0], shown(r[1]), r[2], nm, r[4] ? 1 : 0]);
			}
		}
		return res;
	}

	// scrolls: a scrolling panel (focusable to scroll by keys, not to click).
	function scrolls(n) {
		const o = styleOf(n).overflowY;
		return (o === 'auto' || o === 'scroll') && n.scrollHeight > n.clientHeight;
	}

	// findCover is the cover over the window, if any: a fixed or absolute
	// box over most of it, near the top of the document (a page's covers
	// are), on top where it stands. Hit-testing is asked only of such a box.
	function findCover() {
		if (!document.body) return null;
		// What is on top at the window's middle, and the boxes holding it:
		// a cover over most of the window holds that point.
		const area = 0.5 * innerWidth * innerHeight;
		for (let e = document.elementFromPoint(innerWidth / 2, innerHeight / 2); e && e !== document.body && e !== document.documentElement; e = e.parentElement) {
			const p = styleOf(e).position;
			if (p === 'fixed' || p === 'absolute') {
				const b = e.getBoundingClientRect();
				if (b.width * b.height >= area && cover(e)) return e;
			}
		}
		return null;
	}

	// pointerCandidates are the elements whose cursor may differ from
	// their parent's: those a style rule gives a cursor (and those with a
	// style attribute, which the walk asks by their attribute names). A cursor changes nowhere else (it is inherited), so only they
	// need their style computed, which is most of a walk's cost on a large
	// page. null when a style sheet cannot be read (another origin's): then
	// every element's style is asked.
	function pointerCandidates() {
		return sheetCandidates().pointer;
	}

	// sheetCandidates are, per read, the elements a style rule may give
	// what only a style says, so that only they need their style asked:
	// pointer, those a rule gives a cursor (a style attribute: see below; a cursor
	// changes nowhere else: it is inherited); pseudo, those a rule gives
	// ::before or ::after content (and <q>, whose quotes the browser's own
	// sheet makes). Either is null when a sheet cannot be read (another
	// origin's) or nests rules: then every element is asked.
	let sheetCands = null;
	function sheetCandidates() {
		if (sheetCands) return sheetCands;
		const sels = [], pse = [];
		let ok = true;
		const visit = (rules) => {
			for (const r of rules) {
				if (r.selectorText !== undefined) {
					if (r.style && r.style.getPropertyValue('cursor')) sels.push(r.selectorText);
					if (r.style && r.style.getPropertyValue('content') && /:(?:before|after)\b/i.test(r.selectorText)) pse.push(r.selectorText);
					if (r.cssRules && r.cssRules.length) ok = false; // nested rules: relative selectors
				} else if (r.styleSheet) {
					try { visit(r.styleSheet.cssRules); } catch (e) { ok = false; }
				} else if (r.cssRules) {
					visit(r.cssRules);
				}
			}
		};
		// Another origin's sheet, found by stillWatch, is not asked again
		// (a thrown error costs more than the rest of this).
		const sheet = (sh) => {
			if (foreignSheets.has(sh)) ok = false;
			else try { visit(sh.cssRules); } catch (e) { ok = false; }
			return ok;
		};
		for (const sh of stillSheets) if (!sheet(sh)) return (sheetCands = NO_CANDS);
		for (const sh of stillAdopted) if (!sheet(sh)) return (sheetCands = NO_CANDS);
		const match = (list, out) => {
			const clean = list.map((x) => x.replace(/::?(?:before|after|first-line|first-letter|marker|placeholder|selection|backdrop|file-selector-button|-webkit-[\w-]+|-moz-[\w-]+)(?:\([^)]*\))?/gi, '')).filter((x) => x.trim());
			const add = (sel) => { for (const e of document.querySelectorAll(sel)) out.add(e); };
			try {
				if (clean.length) add(clean.join(','));
			} catch (e) {
				for (const sel of clean) {
					try { add(sel); } catch (e2) { /* a selector this engine cannot match */ }
				}
			}
			return out;
		};
		return (sheetCands = {
			// An element whose style attribute gives a cursor is one too;
			// the walk asks every element with a style attribute (A_STYLE)
			// rather than the document which ones.
			// No rule (a page of no sheets) or no <q>: one empty set, not
			// one made each read.
			pointer: sels.length ? match(sels, new Set()) : NO_ELEMENTS,
			pseudo: pse.length || quotes.length ? match(pse, new Set(quotes)) : NO_ELEMENTS,
		});
	}
	const NO_CANDS = { pointer: null, pseudo: null }, NO_ELEMENTS = new Set();
	// quotes: the document's <q> elements, a live list the document keeps
	// counted until it changes.
	const quotes = document.getElementsByTagName('q');

	// cover: a box over most of the window with a few words on it (a
	// "START" or "Tap to continue" screen), on top where it stands.
	function cover(n) {
		const b = n.getBoundingClientRect();
		if (b.width * b.height < 0.5 * innerWidth * innerHeight) return false;
		const t = sp(n.textContent);
		if (!t || t.length > 40 || n.querySelector(CONTROL + ', a[href]')) return false;
		const x = Math.min(Math.max(b.x + b.width / 2, 0), innerWidth - 1), y = Math.min(Math.max(b.y + b.height / 2, 0), innerHeight - 1);
		const top = document.elementFromPoint(x, y);
		return !!top && (top === n || n.contains(top));
	}

	// keptHint is what tells a nameless item apart: a field's near text, a
	// link's or button's icon; null when none. Kept as keptName keeps a name.
	function keptHint(n, r, editable, light) {
		const k = light ? stillHints.get(n) : undefined;
		if (k !== undefined && k[0] === r) return k[1];
		let hint = null;
		if (FIELD.has(r) || editable) {
			const t = near(n, r);
			if (t) hint = ['near', t];
		}
		if (!hint && (r === 'link' || r === 'button')) {
			const ic = iconOf(n);
			if (ic) hint = ['icon', ic];
		}
		if (light) stillHints.set(n, [r, hint]);
		return hint;
	}

	// clickName is what a clickable is listed by: [r, name, its whole
	// text when the name is that text cut, hint, the length of its
	// textContent] (the name is not asked of one longer than 2000: a box of
	// a whole page's text is a container, not one thing to click). Kept
	// as keptName keeps a name.
	function clickName(n, r, light) {
		const k = light ? stillClicks.get(n) : undefined;
		if (k !== undefined && k[0] === r) return k;
		const st = { nc: false };
		const len = (n.textContent || '').length;
		let nm = '', full = '', hint = null;
		if (len <= 2000) {
			nm = ownName(n, r, nameCx(n, st, true, light), false);
			if (!nm) {
				full = sp(content(n, nameCx(n, st, true, light)));
				nm = cut(full, 80);
			}
			if (!nm) {
				let ic = iconOf(n);
				if (ic) hint = ['icon', ic];
				else if ((ic = wordOf(n))) hint = ['class', ic];
			}
		}
		const v = [r, nm, full, hint, len];
		if (light && !st.nc) stillClicks.set(n, v);
		return v;
	}

	// clickLen is the length of a clickable's textContent, as clickName
	// has it, without its name.
	function clickLen(n, r, light) {
		const k = light ? stillClicks.get(n) : undefined;
		return k !== undefined && k[0] === r ? k[4] : (n.textContent || '').length;
	}

	// cut bounds a clickable's text: a row's whole text is more than tells it apart.
	const cut = (s, n) => s.length > n ? s.slice(0, n - 1) + '…' : s;

	// walk lists el's subtree in flat-tree order. An item is
	// [id, role, name, states, href, x, y, w, h, value, hint]; hint is a
	// text that is not the accessible name: ['near', text] or ['icon', text].
	function walk(el, out, modal, hidden) {
		const stack = [el];
		const fl = [(hidden ? F_HID : 0) | (el.parentElement && styleOf(el.parentElement).cursor === 'pointer' ? F_PTR : 0) |
			(el !== document.body && el.getRootNode() !== document ? F_SHADOW : 0) |
			(el.parentElement && el.parentElement.closest('[aria-disabled="true"]') ? F_DISABLED : 0)];
		const later = []; // a clickable named once its inside is walked: [n, r, light], by item index
		const standIn = new Set(); // controls whose label was listed for them
		const memo = new Map(); // lists told popup or not
		const ctlSeen = new Map(); // a label's control: [shown, its rect]
		const cands = pointerCandidates();
		// The cover is hit-tested only when an element gets as far as
		// asking (none does on a page of a heading and a link).
		let coverEl;
		const cover = () => coverEl !== undefined ? coverEl : (coverEl = findCover());
		// ups: with nest, what each node on the stack stands in (nestOut).
		const ups = nestOut ? [0] : null;
		while (stack.length) {
			const n = stack.pop();
			let f = fl.pop();
			const up = ups ? ups.pop() : 0;
			if (typeof n === 'number') {
				// A clickable around items of its own that adds no text of
				// its own to theirs (a row around its one link) is a double.
				// One around many is a layout box, not a thing to click. It
				// is named only now, when it is known to be listed (a row's
				// name is the dearest of all: its whole text).
				const i = n;
				let inner = 0;
				for (let j = i + 1; j < out.items.length && inner < 8; j++) if (out.items[j]) inner++;
				if (inner >= 8) {
					out.items[i] = null;
					continue;
				}
				const [, nm, full, hint] = clickName(...later[i]);
				out.items[i][2] = nm;
				out.items[i][10] = hint;
				if (!inner) continue;
				let rest = full || nm;
				for (let j = i + 1; j < out.items.length; j++) {
					const it = out.items[j];
					if (it && it[2]) rest = rest.replace(it[2], ' ');
				}
				if (sp(rest).length <= 1) out.items[i] = null;
				continue;
			}
			if (n.nodeType !== 1) {
				// A text is on the stack only when nest asked for a container's
				// texts; it is read only if its container is kept (nestKept).
				if (n.nodeType === 3) nestOut.push([0, up, n]);
				continue;
			}
			// Asked once here, each of them, for all that follows.
			const tag = n.localName;
			if (skipped(n, tag) || (f & F_SVG && SVG_HIDDEN.has(tag))) continue;
			const ab = f & F_SHADOW ? attrBits(n) : keptBits(n);
			if ((ab & A_HIDDEN && n.getAttribute('aria-hidden') === 'true') || (ab & A_INERT && n.inert)) f |= F_HID;
			if (ab & A_DISABLED && n.getAttribute('aria-disabled') === 'true') f |= F_DISABLED;
			// Nothing inside aria-hidden or inert is listed, nor any frame.
			if (f & F_HID) continue;
			const rattr = ab & A_ROLE ? n.getAttribute('role') : null;
			let r = roleOf(n, rattr, tag);
			if (r === 'Iframe') {
				const b = n.getBoundingClientRect();
				if (b.width > 0 && b.height > 0 && shown(n)) {
					const cs = styleOf(n);
					const x = b.x + n.clientLeft + parseFloat(cs.paddingLeft), y = b.y + n.clientTop + parseFloat(cs.paddingTop);
					out.frames.push([out.items.length, x, y, n.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight),
						n.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom), T.id(n)]);
					if (nestOut) nestOut.push([T.id(n), up, 'iframe', n, n === nestActive]);
				}
				continue;
			}
			const outside = modal && !modal.contains(n);
			// A contenteditable region's root: generic in Chrome's tree,
			// but a field to type into, its text its value.
			const editable = r === 'generic' && (ab & A_EDIT) !== 0 && n.isContentEditable && !(n.parentElement && n.parentElement.isContentEditable);
			// listed: by its role, so nothing in it is listed as clickable.
			const listed = !outside && (LISTED.has(r) || editable) && !standIn.has(n);
			// Inside a listed item nothing more is listed as clickable: its
			// style is not needed (styles of a whole page cost the most),
			// nor the listed item's own (whose display:none children show
			// nothing), nor an icon's insides. Nor is an svg's shape's (its
			// cursor is the svg's, save for a link in it).
			// light: of the document's own tree, whose changes are heard.
			const sr = n.shadowRoot;
			const light = !(f & F_SHADOW) && !sr;
			// Of the document's own tree, its way down is its ancestors.
			const dis = f & F_SHADOW ? undefined : (f & F_DISABLED) !== 0;
			// sty: 1 the cursor is pointer, 2 display is none, 4 display
			// was asked (of an element with children, to skip them: see
			// below), -1 not asked.
			let sty = -1, fec;
			if (!(f & (F_NATIVE | F_ICON) || listed || (f & F_SVG && tag !== 'a') || (cands && !cands.has(n) && !(ab & A_STYLE) && light))) {
				sty = light ? stillStyle.get(n) : undefined;
				sty = sty !== undefined && sty >= stillBase ? sty - stillBase : undefined;
				const was = sty;
				let cs;
				if (sty === undefined) sty = (cs = styleOf(n)).cursor === 'pointer' ? 1 : 0;
				// display, to skip a hidden box's subtree, is asked of a
				// box of two children or more: it is not inherited, so a
				// hidden wrapper of one child has its subtree walked (to no
				// item: nothing there is shown), which costs less than
				// asking every wrapper (a list's item around its link). A
				// nest read asks every box with children: its containers
				// are numbered in the order the walk meets them.
				if (!(sty & 4) && (((fec = n.firstElementChild) && (nestOut || fec.nextElementSibling)) || !light || tag === 'slot' || ownedByLeaf(null))) {
					sty |= 4 | ((cs || styleOf(n)).display === 'none' ? 2 : 0);
				}
				if (light && sty !== was) stillStyle.set(n, stillBase + sty);
			}
			const ptr = sty >= 0 ? (sty & 1) === 1 : !!(f & F_PTR);
			const none = sty >= 0 && (sty & 2) === 2;
			let kf = f & ~(F_PTR | F_PDOM | F_PMENU) | (ptr ? F_PTR : 0) | (sr ? F_SHADOW : 0) | (tag === 'svg' ? F_SVG : 0);
			const pushed = out.items.length;
			let ctl;
			if (listed) {
				const seen = ctlSeen.get(n);
				const b = !seen ? shownBox(n) : !seen[0] ? null : seen[1].width > 0 && seen[1].height > 0 ? [seen[1].x, seen[1].y, seen[1].width, seen[1].height] : box(n);
				if (b) {
					const nm = keptName(n, r, light, true, ab);
					const st = states(n, r, dis, ab, tag);
					let v = editable ? String(n.innerText || '').slice(0, 200) : value(n, r), hint = null;
					if (editable) st.push('editable');
					if (v && keptSecret(n, light)) {
						st.push('filled');
						v = '';
					}
					if (!nm) hint = keptHint(n, r, editable, light);
					out.items.push([T.id(n), r, nm, st, href(n, r, light), b[0], b[1], b[2], b[3], v, hint]);
				}
				kf |= F_NATIVE;
			} else if (!outside && tag === 'label' && !(f & F_NATIVE) && (ctl = n.control)) {
				// A control drawn by its label (the input itself hidden): the
				// label is what a person clicks, and it stands for the control.
				const c = ctl, cr = role(c);
				// The control's own listing, later in this walk, takes
				// what is asked of it here.
				const csh = shown(c), cb = csh ? c.getBoundingClientRect() : null;
				ctlSeen.set(c, [csh, cb]);
				if (LISTED.has(cr) && (!csh || cb.width < 4 || cb.height < 4)) {
					const b = shownBox(n);
					if (b) {
						out.items.push([T.id(n), cr, keptName(c, cr, light && !c.shadowRoot, false), states(c, cr), '', b[0], b[1], b[2], b[3], secret(c) ? '' : value(c, cr), null]);
						standIn.add(c);
						kf |= F_NATIVE;
					}
				} else if (csh) {
					kf |= F_NATIVE; // the control is listed itself
				}
			} else if (!outside) {
				const why = clickable(n, r, ptr, f, memo, cover, cands, ab, tag);
				if (why) {
					const b = shownBox(n);
					// A box of a whole page's text is a container, not one thing to click.
					if (b && clickLen(n, r, light) <= 2000) {
						const i = out.items.length;
						out.items.push([T.id(n), r, '', states(n, r, dis, ab, tag).concat('clickable'), '', b[0], b[1], b[2], b[3], '', null]);
						kf |= why === 'icon' ? F_ICON : F_CLICK;
						if (why === 'icon') {
							const [, nm, , hint] = clickName(n, r, light);
							out.items[i][2] = nm;
							out.items[i][10] = hint;
						} else {
							later[i] = [n, r, light];
							stack.push(i);
							fl.push(0);
							if (ups) ups.push(0);
						}
					}
				}
			}
			if (!outside && !LISTED.has(r) && out.items.length === pushed) said(n, r, out, light, ab, dis);
			// With nest: an item or a container is what its children stand
			// in, and a container's texts are walked too.
			let kup = up, box = false;
			if (ups) {
				if (out.items.length > pushed) {
					kup = out.items[pushed][0];
					nestOut.push([kup, up]);
				} else {
					const nr = nestRole(n, r);
					if (nr) {
						kup = -(nestOut.length + 1);
						box = true;
						nestOut.push([kup, up, nr, n, n === nestActive]);
					}
				}
			}
			if (LEAF.has(r) || r === 'combobox' || editable) continue;
			// Children by their elements (a node list's text nodes are
			// most of its length), save where the flat tree differs.
			if (sr || tag === 'slot' || ownedByLeaf(null) || box) {
				if (none) continue;
				const kids = flatChildren(n);
				for (let i = kids.length - 1; i >= 0; i--) {
					const t = kids[i].nodeType;
					if (t === 1 || box && t === 3) {
						stack.push(kids[i]);
						fl.push(kf);
						if (ups) ups.push(kup);
					}
				}
			} else if (!none && (fec !== undefined ? fec : n.firstElementChild)) {
				const ckf = kf | F_PDOM | (rattr && MENU_ROLE.test(rattr) ? F_PMENU : 0);
				for (let c = n.lastElementChild; c; c = c.previousElementSibling) {
					stack.push(c);
					fl.push(ckf);
					if (ups) ups.push(kup);
				}
			}
		}
		// Doubles out, and the frames' places with them.
		if (out.items.some((it) => !it)) {
			const at = [];
			let k = 0;
			for (let i = 0; i <= out.items.length; i++) {
				at[i] = k;
				if (i < out.items.length && out.items[i]) k++;
			}
			for (const fr of out.frames) fr[0] = at[fr[0]];
			out.items = out.items.filter(Boolean);
		}
	}
`
