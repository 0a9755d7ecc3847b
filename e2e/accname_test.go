package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
)

// TestAccnameAgreesWithChrome: on the web-platform-tests accname pages
// (testdata/accname, see its README), every element read_page(mode=tree)
// lists has the role Chrome's own accessibility tree gives an element of
// that page, and at least 97% of them the name Chrome gives
// (Accessibility.getFullAXTree in a plain Chromium). An element is matched
// with Chrome's by role and name within its page (a multiset: lyrad's tree
// puts on-screen items first); a name that differs only in runs of ASCII
// whitespace, or past the tree's 160-character cut, counts as the same.
// Every mismatch is logged, and the figure printed.
func TestAccnameAgreesWithChrome(t *testing.T) {
	parallel(t)
	needBrowser(t)
	var pages []string
	root := filepath.Join("testdata", "accname")
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".html") {
			pages = append(pages, p)
		}
		return nil
	})
	if len(pages) < 100 {
		t.Fatalf("%d accname pages under %s", len(pages), root)
	}
	sort.Strings(pages)
	s := newSite(t, "127.0.0.1")
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s.page("/"+filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator))), string(b))
	}

	// The pages in shards side by side, each on its own plain Chromium and
	// lyrad: one after the other they were the longest test of the run.
	const shards = 3
	var mu sync.Mutex
	var total struct{ listed, names, roles, chromeOnly int }
	if !t.Run("shards", func(t *testing.T) {
		for shard := range shards {
			t.Run(fmt.Sprint(shard), func(t *testing.T) {
				parallel(t)
				ctx, sess := plainTab(t, 10*time.Minute)
				cs := connectStdio(t, t.TempDir(), proto2025)
				var listed, names, roles, chromeOnly int
				defer func() {
					mu.Lock()
					defer mu.Unlock()
					total.listed += listed
					total.names += names
					total.roles += roles
					total.chromeOnly += chromeOnly
				}()
				for i := shard; i < len(pages); i += shards {
					p := pages[i]
					path := "/" + filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
					if _, err := cdp.Call(ctx, sess, cdppage.Navigate, cdppage.NavigateParams{URL: s.URL + path}); err != nil {
						t.Fatal(err)
					}
					var chrome, chromeAll []axItem
					waitFor(t, "Chrome's tree of "+path, 30*time.Second, func() bool {
						var state struct {
							Result struct {
								Value string `json:"value"`
							} `json:"result"`
						}
						if err := sess.Call(ctx, "Runtime.evaluate", map[string]any{"expression": "document.readyState + ' ' + location.pathname", "returnByValue": true}, &state); err != nil || state.Result.Value != "complete "+path {
							return false
						}
						prev := chromeAll
						chrome, chromeAll = chromeItems(ctx, t, sess)
						return fmt.Sprint(prev) == fmt.Sprint(chromeAll)
					})

					wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + path, "wait_until": "load", "confirm": true}), "ok")
					env := call(t, cs, "read_page", map[string]any{"mode": "tree", "max_chars": 100000})
					wantStatus(t, env, "ok")
					var ours []axItem
					tree, _ := env["tree"].(string)
					if d := os.Getenv("ACCNAME_DUMP"); d != "" && strings.Contains(path, d) {
						t.Logf("%s:\nlyrad:\n%s\nChrome: %q", path, tree, chrome)
					}
					for _, l := range strings.Split(tree, "\n") {
						if l == "" {
							continue
						}
						m := refLine.FindStringSubmatch(l)
						if m == nil {
							t.Fatalf("%s: line %q does not parse", path, l)
						}
						name, _ := unquote(m[3])
						// A nameless field's value follows its role after a colon.
						ours = append(ours, axItem{strings.TrimSuffix(m[2], ":"), accNorm(name)})
					}

					// Exact matches first, then the rest paired by role. lyrad's
					// element may be of a role the map lists only when it is
					// clickable, or a dialog or live region: it is matched against
					// every node of Chrome's tree; what Chrome's tree has and lyrad
					// does not list is counted only for the listed roles.
					left := map[axItem]int{}
					for _, c := range chromeAll {
						left[c]++
					}
					listedRole := map[axItem]int{}
					for _, c := range chrome {
						listedRole[c]++
					}
					var rest []axItem
					for _, o := range ours {
						if left[o] > 0 {
							left[o]--
							names++
							roles++
						} else {
							rest = append(rest, o)
						}
					}
					byRole := map[string][]string{}
					for _, c := range chromeAll {
						if left[c] > 0 {
							left[c]--
							byRole[c.role] = append(byRole[c.role], c.name)
						}
					}
					for _, o := range rest {
						if cn := byRole[o.role]; len(cn) > 0 {
							roles++
							t.Logf("NAME %s: %s %q, Chrome %q", path, o.role, o.name, cn[0])
							byRole[o.role] = cn[1:]
						} else {
							t.Logf("ROLE %s: %s %q has no element of that role in Chrome's tree", path, o.role, o.name)
						}
					}
					for r, cn := range byRole {
						for _, n := range cn {
							if listedRole[axItem{r, n}] > 0 {
								listedRole[axItem{r, n}]--
								chromeOnly++
								t.Logf("MISSING %s: Chrome lists %s %q", path, r, n)
							}
						}
					}
					listed += len(ours)
				}
			})
		}
	}) {
		return
	}
	listed, names, roles, chromeOnly := total.listed, total.names, total.roles, total.chromeOnly
	if listed == 0 {
		t.Fatal("lyrad listed nothing")
	}
	ratio := float64(names) / float64(listed)
	t.Logf("accname: %d pages, %d elements listed; names as Chrome's %d (%.1f%%), roles %d (%.1f%%); %d of Chrome's not listed",
		len(pages), listed, names, 100*ratio, roles, 100*float64(roles)/float64(listed), chromeOnly)
	fmt.Printf("accname: names %d/%d = %.1f%%, roles %d/%d\n", names, listed, 100*ratio, roles, listed)
	if ratio < 0.97 {
		t.Errorf("names as Chrome's for %.1f%% of the listed elements, want >= 97%%", 100*ratio)
	}
	if roles != listed {
		t.Errorf("roles as Chrome's for %d of %d listed elements, want all", roles, listed)
	}
}

type axItem struct{ role, name string }

// accNorm is a name as the comparison sees it: runs of ASCII whitespace
// collapsed (U+00A0 kept, as Chrome keeps it), cut as the tree cuts it.
func accNorm(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f'
	}), " ")
	if utf8.RuneCountInString(s) > 160 {
		s = string([]rune(s)[:159]) + "…"
	}
	return s
}

// chromeItems is chromeListed with the names kept whole (listed), and
// every unignored node of a DOM node outside a field with its role and
// name (all).
func chromeItems(ctx context.Context, t *testing.T, sess interface {
	Call(context.Context, string, any, any) error
}) (listed, all []axItem) {
	roles := map[string]bool{"link": true, "button": true, "checkbox": true, "radio": true, "switch": true,
		"textbox": true, "searchbox": true, "combobox": true, "listbox": true, "option": true, "menuitem": true,
		"menuitemcheckbox": true, "menuitemradio": true, "tab": true, "slider": true, "spinbutton": true,
		"treeitem": true, "heading": true, "DisclosureTriangle": true, "ColorWell": true, "Date": true,
		"DateTime": true, "InputTime": true, "PopUpButton": true, "ToggleButton": true}
	for _, n := range chromeNodes(ctx, t, sess) {
		it := axItem{n.role, accNorm(n.name)}
		all = append(all, it)
		if roles[it.role] {
			listed = append(listed, it)
		}
	}
	return listed, all
}
