package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAuditTabBudget: one hostile tab left open floods refused requests
// for 20 s (a form POST to an unapproved site with a 2 KB URL, into a
// hidden iframe, and a fetch POST there, every 25 ms). With its budget lowered through
// LYRA_BROWSER_AUDIT_TAB_BYTES_PER_DAY, the tab's audit bytes a second
// fall to its budget once the burst is spent; what was held back is
// counted, per kind, in suppressed rows: every refused fetch the page saw
// fail is a written row or counted in one. The agent's own calls are
// written whole.
func TestAuditTabBudget(t *testing.T) {
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	c := newSite(t, "127.0.0.3")
	c.handle("/post", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "got it") })
	c.handle("/send", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "got it") })
	a.page("/", "<title>home</title>home")
	const floodFor = 20 * time.Second
	a.page("/flood", fmt.Sprintf(`<!doctype html><title>flood</title><body><script>%s
const C = %q, pad = "x".repeat(2000), end = Date.now() + %d;
let n = 0, failed = 0, pending = 0;
const finish = () => { if (pending > 0) { setTimeout(finish, 100); return; } document.title = "done " + failed + " " + n; };
const tick = () => {
  if (Date.now() > end) { finish(); return; }
  n++;
  post(C + "/post?n=" + n + "&p=" + pad, {secret: "1"});
  pending++;
  fetch(C + "/send?n=" + n + "&p=" + pad, {method: "POST", body: "secret=2", mode: "no-cors"})
    .catch(() => { failed++; }).finally(() => { pending--; });
  setTimeout(tick, 25);
};
tick();
</script>`, postFramesJS, c.URL, floodFor.Milliseconds()))
	const perDay = 86400 * 20 // a burst of 17280 bytes, then 20 bytes a second
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026, "LYRA_BROWSER_GUARD_SENDS=judge", fmt.Sprintf("LYRA_BROWSER_AUDIT_TAB_BYTES_PER_DAY=%d", perDay))
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/"}), "ok")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/flood", "wait_until": "commit"}), "ok")
	var title string
	calls := 2
	waitFor(t, "the flood to end", floodFor+60*time.Second, func() bool {
		env := call(t, cs, "get_url", nil)
		calls++
		title, _ = env["title"].(string)
		return strings.HasPrefix(title, "done ")
	})
	var failed, attempts int
	fmt.Sscanf(title, "done %d %d", &failed, &attempts)
	// The browser closes: the tab's summaries are written.
	wantStatus(t, call(t, cs, "close_browser", nil), "ok")
	calls++
	if n := c.count("/post") + c.count("/send"); n != 0 {
		t.Errorf("%d refused requests reached the unapproved site", n)
	}

	lines := auditLines(t, dir)
	var tab string
	for _, l := range lines {
		// The flood's tab, from the first row of its posts or fetches: on
		// a loaded machine the fetches' rows may spend the burst before
		// the first post is judged, and every post is then counted in a
		// summary row only.
		if (l.m["kind"] == "guard" && urlHas("/post?")(l.m["request_url"])) || (l.m["kind"] == "send" && strings.HasPrefix(fmt.Sprint(l.m["destination"]), c.URL)) {
			tab, _ = l.m["tab_id"].(string)
			break
		}
	}
	if tab == "" {
		t.Fatalf("no guard or send row of the flood's requests: %d attempts, %d failed", attempts, failed)
	}
	var start time.Time
	written := map[string]int{} // kind/status of the tab's rows written
	heldCount := map[string]int{}
	var heldBytes float64
	budgetSummaries := 0
	tools := 0
	for _, l := range lines {
		if l.m["kind"] == "tool" {
			tools++
		}
		if l.m["tab_id"] != tab {
			continue
		}
		if l.m["kind"] == "suppressed" {
			n, _ := l.m["count"].(float64)
			b, _ := l.m["bytes"].(float64)
			heldCount[fmt.Sprint(l.m["status"])] += int(n)
			heldBytes += b
			if strings.Contains(fmt.Sprint(l.m["limit"]), "budget") {
				budgetSummaries++
				if l.m["tab_bytes_per_day"] != float64(perDay) {
					t.Errorf("summary %v", l.m)
				}
			}
			continue
		}
		written[fmt.Sprint(l.m["kind"], "/", l.m["status"])]++
		if start.IsZero() {
			start = l.ts
		}
	}
	// Bytes of the tab's rows written in the first 3 s of the flood, and
	// from 8 s in to its end, and their rate.
	rate := func(from, to time.Time) (int, float64) {
		n := 0
		for _, l := range lines {
			if l.m["tab_id"] == tab && !l.ts.Before(from) && l.ts.Before(to) {
				n += l.size
			}
		}
		return n, float64(n) / to.Sub(from).Seconds()
	}
	floodEnd := start.Add(floodFor)
	b0, r0 := rate(start, start.Add(3*time.Second))
	b1, r1 := rate(start.Add(8*time.Second), floodEnd)
	t.Logf("tab %s: %d attempts (%d fetches failed); written %v; held back %v, %.0f bytes, in %d budget summaries", tab, attempts, failed, written, heldCount, heldBytes, budgetSummaries)
	t.Logf("audit of the tab: %d bytes in the first 3 s (%.0f B/s), %d bytes from 8 s to the flood's end (%.0f B/s); budget %d B/day (%.0f B/s)", b0, r0, b1, r1, perDay, float64(perDay)/86400)
	if attempts < 100 {
		t.Fatalf("only %d attempts: the flood did not happen", attempts)
	}
	// The budget's rate is 20 B/s; a generous bound that the flood without
	// a budget (some 20-70 KB/s) is far above.
	if r1 > 1000 {
		t.Errorf("the tab wrote %.0f bytes a second of audit after its burst, budget %d a day", r1, perDay)
	}
	if budgetSummaries == 0 {
		t.Errorf("no suppressed row says the tab's budget held rows back")
	}
	if heldBytes < 100<<10 {
		t.Errorf("only %.0f bytes held back: the flood was too small to show the budget", heldBytes)
	}
	// Each refused fetch is a written row or counted in a summary.
	// (Within 1%: a fetch the page saw fail for another reason.)
	if got := written["send/deny"] + heldCount["send/deny"]; got > failed || got < failed-failed/100 {
		t.Errorf("refused fetches: %d written + %d held back = %d, the page saw %d fail", written["send/deny"], heldCount["send/deny"], got, failed)
	}
	if written["guard/deny"]+heldCount["guard/deny"] == 0 {
		t.Error("no refused post counted")
	}
	// The agent's calls are never held back.
	if tools != calls {
		t.Errorf("%d tool rows for %d calls", tools, calls)
	}
}

// auditLine is one line of the trail, with its size on disk.
type auditLine struct {
	m    map[string]any
	ts   time.Time
	size int
}

func auditLines(t *testing.T, dir string) []auditLine {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []auditLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 8<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		ts, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(m["ts"]))
		out = append(out, auditLine{m: m, ts: ts, size: len(sc.Bytes()) + 1})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
