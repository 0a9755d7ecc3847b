package e2e

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
)

// trickyMarkup is markup where roles and names are easy to get wrong: name
// from content through containers that give none (figure, article, nav,
// ...), text-transform, hidden and aria-hidden parts, labels of every kind,
// native controls with Chrome's own role names, roles that need a context,
// presentation on focusable elements, inert and closed-details content.
const trickyMarkup = `<!doctype html><html><head><style>.up{text-transform:uppercase}.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}.blk{display:block}</style></head><body>
<a href="/1"><figure><img alt="FigAlt" src="x.png"></figure><figcaption>Cap1</figcaption></a>
<a href="/2"><article><img alt="ArtAlt" src="x.png"><h2>Art head</h2></article></a>
<a href="/3"><ul><li>L1</li><li>L2</li></ul></a>
<a href="/4"><table><tr><td>T1</td><td>T2</td></tr></table></a>
<a href="/5"><span class="up">upper me</span></a>
<a href="/6"><span class="sr">Hidden label</span><svg width=10 height=10><title>SvgT</title></svg></a>
<a href="/7"><div>Div1</div><div>Div2</div></a>
<a href="/8"><span>Sp1</span><span>Sp2</span></a>
<a href="/9"><nav>Nav text</nav></a>
<a href="/10"><section aria-label="Sec">Sec text</section></a>
<a href="/11"><section>Sec plain</section></a>
<a href="/12"><aside>Aside t</aside></a>
<a href="/13"><header>Head t</header></a>
<a href="/14"><footer>Foot t</footer></a>
<a href="/15"><main>Main t</main></a>
<a href="/16"><form>Form t</form></a>
<a href="/17"><blockquote>Quote t</blockquote></a>
<a href="/18"><p>Para t</p></a>
<a href="/19"><img src="x.png"></a>
<a href="/20"><img alt="" src="x.png">Empty alt</a>
<a href="/21" title="TitleOnly"><img alt="" src="x.png" width="10" height="10"></a>
<a href="/22"><div role="group">Group t</div></a>
<a href="/23"><dl><dt>DT</dt><dd>DD</dd></dl></a>
<a href="/24"><details><summary>Sum</summary>Body</details></a>
<a href="/25">Before<!-- c --> <b>after</b></a>
<a href="/26"><span style="display:none">none</span>vis</a>
<a href="/27"><span style="visibility:hidden">hid</span>vis2</a>
<a href="/28"><span aria-hidden="true">ah</span>vis3</a>
<a href="/29"><input value="inval"> inp</a>
<a href="/30"><i class="fa"></i>Icon</a>
<a href="/31">Line1<br>Line2</a>
<a href="/32"><div style="float:left">F1</div><div style="position:absolute;left:900px">F2</div></a>
<input id="i1" placeholder="Place">
<input id="i2" type="Text" placeholder="Place2" required>
<input id="i3" title="Ttl" placeholder="Place3">
<label>Wrap <input id="i4" value="go"></label>
<label for="i5">For label</label><input id="i5">
<label for="i7"><svg width="5" height="5"></svg></label><input id="i7" placeholder="NotName">
<label for="i8"><svg width="5" height="5"></svg></label><input id="i8" title="TitleAfterEmptyLabel">
<input id="i6" aria-labelledby="l6a l6b"><span id="l6a">Lab</span><span id="l6b" hidden>Hid</span>
<button>Btn <img alt="img"></button>
<button aria-pressed="true">Tog</button>
<button aria-haspopup="menu">Pop</button>
<button aria-expanded="true">Exp</button>
<button disabled>Dis</button>
<input type="submit"><input type="reset"><input type="button" value="ValBtn"><input type="image" alt="ImgBtn" src="x.png">
<input type="file"><input type="color"><input type="date"><input type="time"><input type="datetime-local"><input type="month"><input type="week">
<input type="range" aria-label="Rng"><input type="number" aria-label="Num"><input type="search" aria-label="Srch"><input list="dl1" aria-label="Lst"><datalist id="dl1"><option>a</option></datalist>
<input type="email" aria-label="Em"><input type="password" aria-label="Pw"><input type="tel" aria-label="Tel"><input type="url" aria-label="Url">
<select aria-label="Sel"><option>O1</option><option selected>O2</option></select>
<select multiple aria-label="Mul"><option>M1</option><option selected>M2</option></select>
<select size="3" aria-label="Sz"><option>S1</option></select>
<textarea aria-label="Ta"></textarea>
<div contenteditable="true">Editable <b>bold</b></div>
<div role="textbox" aria-label="RoleTb" style="height:1em"></div>
<div role="button" tabindex="0">RoleBtn</div>
<div role="checkbox" aria-checked="true">RoleCb</div>
<div role="switch" aria-checked="false">RoleSw</div>
<div role="tab" aria-selected="true">RoleTab</div>
<div role="heading" aria-level="5">RoleHead</div>
<div role="heading">RoleHead2</div>
<div role="link">RoleLinkNoTab</div>
<div role="menuitem">RoleMi</div>
<div role="option" aria-selected="true">RoleOpt</div>
<div role="presentation"><button>InPres</button></div>
<button role="presentation">PresBtn</button>
<a role="none" href="/n">NoneLink</a>
<h3 role="none">NoneH</h3>
<div role="listbox" aria-label="LB"><div role="option">LO1</div></div>
<input type="checkbox" checked aria-label="cb1"><input type="checkbox" id="ind" aria-label="cb2"><script>document.getElementById('ind').indeterminate=true</script>
<input type="radio" checked aria-label="rd">
<fieldset disabled><button>FsDis</button></fieldset>
<div aria-disabled="true"><button>AriaDisParent</button></div>
<details open><summary>OpenSum</summary>x</details>
<details><summary>ClosedSum</summary><button>InClosed</button></details>
<h1>H1 <span class="up">upper</span></h1>
<a href="/33" aria-label="  ">SpacesLabel</a>
<a href="/34" aria-labelledby="nope">MissingRef</a>
<button><span aria-label="Inner label">x</span></button>
<a href="/35"><span title="spantitle" style="display:inline-block;width:10px;height:10px"></span></a>
<a href="/36"><svg role="img" aria-label="SvgRole"></svg></a>
<a href="/37">A&nbsp;B</a>
<div style="opacity:0"><button>Transparent</button></div>
<div inert><button>Inert</button></div>
<button style="width:0;height:0;padding:0;border:0;overflow:hidden">Zero</button>
<map name="m"><area href="/area" alt="AreaAlt" shape="rect" coords="0,0,10,10"></map><img usemap="#m" src="x.png" width=20 height=20>
<button><div>Blk1</div><div>Blk2</div></button>
<a href="/38"><span style="display:inline-block">IB1</span><span style="display:inline-block">IB2</span></a>
<a href="/39"><span style="display:flex">Fx1</span><span>Fx2</span></a>
</body></html>
`

// TestTreeAgreesWithChrome: read_page(mode=tree) is read in lyrad's
// isolated world, by Chrome's rules rather than from Chrome's
// accessibility tree. On a page of tricky markup, every line it lists has
// the role and name Chrome's own tree (Accessibility.getFullAXTree in a
// plain Chromium) gives that element, but for whitespace, and nothing
// Chrome lists is missing.
func TestTreeAgreesWithChrome(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/tricky", trickyMarkup)

	// Chrome's view, from a plain Chromium.
	ctx, sess := plainTab(t, 90*time.Second)
	if _, err := cdp.Call(ctx, sess, cdppage.Navigate, cdppage.NavigateParams{URL: s.URL + "/tricky"}); err != nil {
		t.Fatal(err)
	}
	// The whole page: loaded, and the same tree twice running.
	var chrome []string
	waitFor(t, "Chrome's tree of the page", 30*time.Second, func() bool {
		var state struct {
			Result struct {
				Value string `json:"value"`
			} `json:"result"`
		}
		if err := sess.Call(ctx, "Runtime.evaluate", map[string]any{"expression": "document.readyState", "returnByValue": true}, &state); err != nil || state.Result.Value != "complete" {
			return false
		}
		prev := chrome
		chrome = chromeListed(ctx, t, sess)
		return len(chrome) > 50 && strings.Join(prev, "\n") == strings.Join(chrome, "\n")
	})

	// lyrad's view.
	cs := connectStdio(t, t.TempDir(), proto2025)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/tricky", "confirm": true}), "ok")
	env := call(t, cs, "read_page", map[string]any{"mode": "tree", "max_chars": 100000})
	wantStatus(t, env, "ok")
	var ours []string
	for _, l := range strings.Split(env["tree"].(string), "\n") {
		m := refLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %q does not parse", l)
		}
		name, _ := unquote(m[3])
		// A nameless field's value follows its role: "textbox: Zed".
		role := strings.TrimSuffix(m[2], ":")
		if role == "generic" {
			continue // clickable or editable, listed by lyrad for no role Chrome gives it
		}
		ours = append(ours, role+" "+squeeze(name))
	}
	sort.Strings(chrome)
	sort.Strings(ours)
	missing, extra := diffMultiset(chrome, ours)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("%d lines of Chrome's tree missing, %d lines not in it\nmissing: %q\nextra: %q", len(missing), len(extra), missing, extra)
	}
	t.Logf("%d lines, %d agree with Chrome's tree", len(ours), len(ours)-len(extra))
}

// chromeListed is what the map would list by Chrome's accessibility tree:
// role and name (whitespace squeezed out) of each unignored node of a
// listed role, leaving out a native select's options and what is inside a
// text field. The page gives every such element a box.
func chromeListed(ctx context.Context, t *testing.T, sess interface {
	Call(context.Context, string, any, any) error
}) []string {
	roles := map[string]bool{"link": true, "button": true, "checkbox": true, "radio": true, "switch": true,
		"textbox": true, "searchbox": true, "combobox": true, "listbox": true, "option": true, "menuitem": true,
		"menuitemcheckbox": true, "menuitemradio": true, "tab": true, "slider": true, "spinbutton": true,
		"treeitem": true, "heading": true, "DisclosureTriangle": true, "ColorWell": true, "Date": true,
		"DateTime": true, "InputTime": true}
	var out []string
	for _, n := range chromeNodes(ctx, t, sess) {
		if roles[n.role] {
			out = append(out, n.role+" "+squeeze(n.name))
		}
	}
	return out
}

// chromeNodes are the unignored nodes of Chrome's accessibility tree that
// stand for a DOM node, with their role and name as Chrome gives them,
// leaving out what is inside a field (the parts of a text, date or time
// field, a native select's popup, are the browser's own).
func chromeNodes(ctx context.Context, t *testing.T, sess interface {
	Call(context.Context, string, any, any) error
}) []axItem {
	var r struct {
		Nodes []struct {
			NodeID   string   `json:"nodeId"`
			ParentID string   `json:"parentId"`
			Ignored  bool     `json:"ignored"`
			Role     *axValue `json:"role"`
			Name     *axValue `json:"name"`
			Backend  int64    `json:"backendDOMNodeId"`
		} `json:"nodes"`
	}
	if err := sess.Call(ctx, "Accessibility.getFullAXTree", map[string]any{}, &r); err != nil {
		t.Fatal(err)
	}
	leaf := map[string]bool{"textbox": true, "searchbox": true, "combobox": true, "spinbutton": true, "slider": true, "MenuListPopup": true,
		"Date": true, "DateTime": true, "InputTime": true}
	role := map[string]string{}
	parent := map[string]string{}
	for _, n := range r.Nodes {
		role[n.NodeID], parent[n.NodeID] = n.Role.str(), n.ParentID
	}
	var out []axItem
	for _, n := range r.Nodes {
		if n.Ignored || n.Backend == 0 {
			continue
		}
		inLeaf := false
		for p := n.ParentID; p != "" && !inLeaf; p = parent[p] {
			inLeaf = leaf[role[p]]
		}
		if !inLeaf {
			out = append(out, axItem{n.Role.str(), n.Name.str()})
		}
	}
	return out
}

type axValue struct {
	Value any `json:"value"`
}

func (v *axValue) str() string {
	if v == nil {
		return ""
	}
	s, _ := v.Value.(string)
	return s
}

func squeeze(s string) string { return strings.Join(strings.Fields(s), "") }

func unquote(s string) (string, error) {
	var out string
	err := json.Unmarshal([]byte(`"`+s+`"`), &out)
	return out, err
}

// diffMultiset: the items of sorted a not in sorted b, and of b not in a.
func diffMultiset(a, b []string) (onlyA, onlyB []string) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			onlyA = append(onlyA, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			onlyB = append(onlyB, b[j])
			j++
		default:
			i++
			j++
		}
	}
	return onlyA, onlyB
}
