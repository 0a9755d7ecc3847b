package snapshot

// The page-side code of the reading tools. Every function here runs in
// lyrad's isolated world (Runtime.callFunctionOn with that world's context),
// never in the page's own: it sees the page's DOM and none of its globals,
// and the page cannot see it. Each is a function expression; lib is pasted
// in front of its body so each call is self-contained (an isolated world is
// recreated with every document, so nothing is kept between calls).

// lib holds the helpers the functions share.
const lib = `
	// norm collapses whitespace, as read_page's text does.
	const norm = (s) => String(s || '').replace(/\s+/g, ' ').trim();

	// shadowRoots yields the open shadow roots under root, depth first.
	function* shadowRoots(root) {
		for (const el of root.querySelectorAll('*')) {
			if (el.shadowRoot) {
				yield el.shadowRoot;
				yield* shadowRoots(el.shadowRoot);
			}
		}
	}

	// find returns the first element a selector names, or null. CSS looks
	// into open shadow roots too (as Playwright's CSS engine does) when the
	// document itself has no match; text=... is the smallest element whose
	// text holds the phrase (quoted: is exactly it), as Playwright's text=.
	function find(sel) {
		sel = String(sel).trim();
		if (sel.startsWith('text=')) return findText(sel.slice(5));
		let el;
		try {
			el = document.querySelector(sel);
		} catch (e) {
			throw new Error('lyrad:badselector ' + e.message);
		}
		if (el) return el;
		for (const r of shadowRoots(document)) {
			el = r.querySelector(sel);
			if (el) return el;
		}
		return null;
	}

	function findText(t) {
		let exact = false;
		t = t.trim();
		if (t.length > 1 && (t[0] === '"' || t[0] === "'") && t[t.length - 1] === t[0]) {
			exact = true;
			t = t.slice(1, -1);
		}
		const want = exact ? norm(t) : norm(t).toLowerCase();
		if (!want) return null;
		const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD']);
		// Rendered text where there is one (no script source, no hidden
		// text); textContent for what is not rendered (SVG, display:none).
		const raw = (el) => el.innerText ?? el.textContent;
		const text = (el) => exact ? norm(raw(el)) : norm(raw(el)).toLowerCase();
		const holds = (el) => !skip.has(el.tagName) && (exact ? text(el) === want || text(el).includes(want) : text(el).includes(want));
		// Descend while a child still holds the phrase: the deepest such
		// element is the one a person would point at.
		let cur = document.body || document.documentElement;
		if (!cur || !holds(cur)) return null;
		for (;;) {
			let next = null;
			for (const c of cur.children) {
				if (holds(c)) { next = c; break; }
			}
			if (!next) break;
			cur = next;
		}
		if (exact && text(cur) !== want) return null;
		return cur;
	}

	// visible: rendered with a box, and not visibility:hidden. An element
	// with display:contents has no box of its own; its children decide.
	function visible(el) {
		if (!el || !el.isConnected) return false;
		const st = getComputedStyle(el);
		if (st.display === 'contents') {
			for (const c of el.children) if (visible(c)) return true;
			return false;
		}
		if (st.visibility === 'hidden' || st.visibility === 'collapse') return false;
		const r = el.getBoundingClientRect();
		return r.width > 0 && r.height > 0;
	}

	function bodyText() {
		const b = document.body || document.documentElement;
		return b ? (b.innerText ?? b.textContent ?? '') : '';
	}
`

func fn(params, body string) string {
	return "function(" + params + ") {\n" + lib + body + "\n}"
}

// JSText returns the rendered text (innerText) of the region a selector
// names, or of the page: {found, text}.
var JSText = fn("sel", `
	const el = sel ? find(sel) : (document.body || document.documentElement);
	if (!el) return { found: false, text: '' };
	return { found: true, text: String(el.innerText ?? el.textContent ?? '') };
`)

// textSlice is the page-side half of snapshot.CutSlice: of a text, the
// characters (code points, as Go's runes) [offset, offset+max) and how many
// there are in all. The whole text stays in the page; lyrad is sent the
// slice it returns, never the rest.
const textSlice = `
	const textSlice = (S, offset, max) => {
		const text = S.text;
		if (S.total === undefined) {
			S.wide = /[\uD800-\uDFFF]/.test(text);
			if (!S.wide) S.total = text.length;
			else { let n = 0; for (let i = 0; i < text.length; n++) i += text.codePointAt(i) > 0xFFFF ? 2 : 1; S.total = n; }
		}
		if (offset >= S.total) return { found: true, total: S.total, text: '' };
		const end = Math.min(S.total, offset + max);
		if (!S.wide) return { found: true, total: S.total, text: text.slice(offset, end) };
		// at: the UTF-16 index of code point k, scanning from the last one found.
		let i = 0, k = 0;
		const at = (want) => { for (; k < want && i < text.length; k++) i += text.codePointAt(i) > 0xFFFF ? 2 : 1; return i; };
		const a = at(offset), b = at(end);
		return { found: true, total: S.total, text: text.slice(a, b) };
	};
`

// JSTextSlice returns, of the rendered text (innerText) of the region a
// selector names (or of the page), the characters [offset, offset+max) and
// the total: {found, total, text}. The text is kept in lyrad's isolated
// world under key (unless key is ""); again reuses it (a later page of the same read, cut from
// the same text), when it is still there.
var JSTextSlice = fn("key, sel, offset, max, again", textSlice+`
	let S = globalThis.__lyradText;
	if (!again || !S || S.key !== key) {
		const el = sel ? find(sel) : (document.body || document.documentElement);
		if (!el) return { found: false, total: 0, text: '' };
		S = { key, text: String(el.innerText ?? el.textContent ?? '') };
		if (key) globalThis.__lyradText = S;
	}
	return textSlice(S, offset, max);
`)

// JSTextSliceOn is JSTextSlice for the element `this` is bound to (an
// aria-ref).
var JSTextSliceOn = fn("key, offset, max, again", textSlice+`
	let S = globalThis.__lyradText;
	if (!again || !S || S.key !== key) {
		S = { key, text: String(this.innerText ?? this.textContent ?? '') };
		if (key) globalThis.__lyradText = S;
	}
	return textSlice(S, offset, max);
`)

// linksBody collects the visible links under root: absolute,
// de-duplicated {text, href}, at most limit, and whether there were more.
// Open shadow roots are included; javascript: links are not links.
const linksBody = `
	const roots = [root];
	for (const r of shadowRoots(root)) roots.push(r);
	const seen = new Set();
	const links = [];
	let truncated = false;
	const own = root.matches && root.matches('a[href], area[href]') ? [root] : [];
	for (const r of roots) {
		for (const a of (r === root ? own : []).concat([...r.querySelectorAll('a[href], area[href]')])) {
			const href = a.href;
			if (!href || /^javascript:/i.test(href) || seen.has(href)) continue;
			if (a.tagName === 'A' && !visible(a)) continue;
			seen.add(href);
			if (links.length >= limit) { truncated = true; break; }
			let text = norm(a.innerText || a.textContent);
			if (!text) text = norm(a.getAttribute('aria-label') || a.title || (a.querySelector('img[alt]') || {}).alt || '');
			links.push({ text, href });
		}
		if (truncated) break;
	}
	return { found: true, links, truncated };
`

// JSLinks returns the visible links of the region a selector names (or of
// the page): {found, links, truncated}.
var JSLinks = fn("sel, limit", `
	const root = sel ? find(sel) : document;
	if (!root) return { found: false, links: [], truncated: false };
`+linksBody)

// JSLinksOn is JSLinks for the element `this` is bound to (an aria-ref).
var JSLinksOn = fn("limit", `
	const root = this;
`+linksBody)

// JSFind returns the element a selector names, by reference (null when
// none), so the session can learn its backendNodeId.
var JSFind = fn("sel", `return find(sel);`)

// JSWait waits in the page, up to sliceMs, for a condition, and resolves
// {met, excerpt}. It checks at once, then on every DOM change (coalesced)
// and every 100 ms (styles and layout change without a mutation). The Go
// side calls it again until its own deadline, so a navigation that
// destroys this world only ends one slice.
//
// kind "text": the phrase is in the page's visible text (whitespace does
// not matter, case does); state "hidden": it is not.
// kind "selector": state visible, hidden, attached or detached.
var JSWait = fn("kind, arg, state, sliceMs", `
	const want = norm(arg);
	const check = () => {
		if (kind === 'text') {
			const has = norm(bodyText()).includes(want);
			return state === 'hidden' ? !has : has;
		}
		const el = find(arg);
		switch (state) {
			case 'attached': return !!el;
			case 'detached': return !el;
			case 'hidden': return !el || !visible(el);
			default: return !!el && visible(el);
		}
	};
	return new Promise((resolve, reject) => {
		let done = false, queued = false, obs = null, iv = 0, timer = 0;
		const finish = (met, err) => {
			if (done) return;
			done = true;
			clearInterval(iv);
			clearTimeout(timer);
			if (obs) obs.disconnect();
			if (err) { reject(err); return; }
			resolve({ met, excerpt: met ? '' : norm(bodyText()).slice(0, 200) });
		};
		const test = () => {
			queued = false;
			if (done) return;
			try {
				if (check()) finish(true);
			} catch (e) {
				finish(false, e);
			}
		};
		test();
		if (done) return;
		obs = new MutationObserver(() => {
			if (!queued) { queued = true; setTimeout(test, 10); }
		});
		obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
		iv = setInterval(test, 100);
		timer = setTimeout(() => finish(false), sliceMs);
	});
`)

// JSReadyState is document.readyState.
const JSReadyState = `function() { return document.readyState; }`

// JSElementInfo describes the element `this` is bound to, for read_image:
// its tag and its box in its frame's viewport.
const JSElementInfo = `function() {
	const r = this.getBoundingClientRect();
	return { tag: String(this.tagName || '').toLowerCase(), x: r.x, y: r.y, w: r.width, h: r.height, connected: this.isConnected };
}`
