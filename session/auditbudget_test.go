package session

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lyrad/lyrad/audit"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// A tab flooding at 30 KB/s for a day writes at most its budget; the rows
// held back are all counted.
func TestTabBudgetBoundsADay(t *testing.T) {
	const perDay = 500 << 20
	l := &rowLimiter{perDay: perDay}
	const size = 2500
	var written, held, summaries int64
	var heldBytes int64
	now := t0
	// 12 rows a second of 2500 bytes over four kinds: 30 KB/s, under the
	// rate of any one kind.
	kinds := []string{"guard/deny", "send/deny", "send/recorded", "guard/allow"}
	n := 0
	for now.Before(t0.Add(24 * time.Hour)) {
		d := l.allow("tab", kinds[n%len(kinds)], size, now)
		n++
		for _, s := range d.due {
			summaries++
			held += int64(s.count)
			heldBytes += s.bytes
			written += 400
			l.charge("tab", 400, now)
		}
		if d.write {
			written += size
		}
		now = now.Add(time.Second / 12)
	}
	for _, s := range l.drain("tab") {
		held += int64(s.count)
		heldBytes += s.bytes
	}
	if written > perDay+4096 {
		t.Errorf("a day's flood wrote %d bytes, budget %d", written, perDay)
	}
	if written < perDay*9/10 {
		t.Errorf("a day's flood wrote only %d bytes of a budget of %d", written, perDay)
	}
	rows := (written - summaries*400) / size
	if rows+held != int64(n) {
		t.Errorf("rows: %d written + %d held != %d offered", rows, held, n)
	}
	if heldBytes != held*size {
		t.Errorf("held bytes %d, want %d", heldBytes, held*size)
	}
	// Summaries come about once each refill (some 86 s), not per row.
	if summaries > 4*24*3600/80 {
		t.Errorf("%d summaries in a day", summaries)
	}
	t.Logf("a day at 30 KB/s: %d bytes written (%d rows, %d summaries), %d rows held back", written, rows, summaries, held)
}

// Ordinary browsing is never cut: a busy page (60 rows of 1.5 KB) every
// 30 s for a day, after a first burst of 2000 rows.
func TestTabBudgetLeavesBrowsingAlone(t *testing.T) {
	l := &rowLimiter{perDay: 500 << 20}
	now := t0
	for i := 0; i < 2000; i++ {
		if d := l.allow("tab", fmt.Sprint("guard/", i%40), 2400, now); !d.write || len(d.due) > 0 {
			t.Fatalf("burst row %d: %+v", i, d)
		}
	}
	for page := 0; page < 2880; page++ {
		for i := 0; i < 60; i++ {
			if d := l.allow("tab", "guard/allow", 1500, now); !d.write || len(d.due) > 0 {
				t.Fatalf("page %d row %d: %+v", page, i, d)
			}
			now = now.Add(10 * time.Millisecond)
		}
		now = now.Add(29 * time.Second)
	}
}

func TestTabBudgetHoldsUntilRefilled(t *testing.T) {
	l := &rowLimiter{perDay: 86400 * 100} // burst 86400 bytes, ~99 B/s
	now := t0
	burst := int(l.burst())
	// The burst goes through, then the tab is held: every kind of it.
	wrote := 0
	for i := 0; ; i++ {
		d := l.allow("a", "guard/deny", 1000, now)
		if !d.write {
			if !d.held {
				t.Fatal("the first row past the budget does not say the tab is held")
			}
			break
		}
		wrote += 1000
		now = now.Add(100 * time.Millisecond) // under the rate
	}
	if took := now.Sub(t0).Seconds(); float64(wrote) > float64(burst)+took*l.rate() || wrote < burst-1000 {
		t.Errorf("wrote %d of a burst of %d", wrote, burst)
	}
	if d := l.allow("a", "send/deny", 10, now); d.write || d.held {
		t.Errorf("another kind of a held tab: %+v", d)
	}
	// Another tab has its own budget.
	if d := l.allow("b", "guard/deny", 1000, now); !d.write {
		t.Errorf("another tab: %+v", d)
	}
	// No refill yet: the timer would wait.
	due, next := l.refilled(now)
	if len(due) != 0 || next <= 0 {
		t.Fatalf("refilled at once: %v %v", due, next)
	}
	if want := time.Duration(float64(burst/resumeDiv+1000) / l.rate() * float64(time.Second)); next > want+time.Second || next < want/2 {
		t.Errorf("next refill in %v, want about %v", next, want)
	}
	// Still held just before.
	if d := l.allow("a", "guard/deny", 1000, now.Add(next/2)); d.write {
		t.Errorf("written before the refill: %+v", d)
	}
	later := now.Add(next)
	due, next = l.refilled(later)
	if next != 0 || len(due) != 2 {
		t.Fatalf("after refill: due %+v next %v", due, next)
	}
	byKind := map[string]summary{}
	for _, s := range due {
		byKind[s.kind] = s
	}
	g := byKind["guard/deny"]
	if g.count != 2 || g.bytes != 2000 || !g.budget || g.rate || !g.since.Equal(now) || g.last.Before(now) {
		t.Errorf("guard summary %+v", g)
	}
	if s := byKind["send/deny"]; s.count != 1 || s.bytes != 10 {
		t.Errorf("send summary %+v", s)
	}
	if d := l.allow("a", "guard/deny", 1000, later); !d.write || len(d.due) != 0 {
		t.Errorf("after the refill: %+v", d)
	}
}

// A held tab that writes again first sums up what it held back, without
// the timer.
func TestTabBudgetSummaryBeforeNextRow(t *testing.T) {
	l := &rowLimiter{perDay: 86400 * 100}
	now := t0
	for l.allow("a", "guard/deny", 5000, now).write {
		now = now.Add(time.Second)
	}
	l.allow("a", "guard/deny", 5000, now.Add(time.Second))
	d := l.allow("a", "guard/deny", 100, now.Add(time.Hour))
	if !d.write || len(d.due) != 1 || d.due[0].count != 2 || d.due[0].bytes != 10000 {
		t.Errorf("%+v", d)
	}
}

// The rate of one kind and the budget share one record of what was held.
func TestRateAndBudgetOneRecord(t *testing.T) {
	l := &rowLimiter{perDay: 500 << 20}
	now := t0
	for i := 0; i < rowBurst; i++ {
		if !l.allow("a", "send/recorded", 100, now).write {
			t.Fatalf("row %d of the burst held", i)
		}
	}
	for i := 0; i < 5; i++ {
		if l.allow("a", "send/recorded", 100, now).write {
			t.Fatal("past the row burst written")
		}
	}
	d := l.allow("a", "send/recorded", 100, now.Add(time.Second))
	if !d.write || len(d.due) != 1 || d.due[0].count != 5 || !d.due[0].rate || d.due[0].budget {
		t.Errorf("%+v", d)
	}
}

func TestTabBudgetOff(t *testing.T) {
	l := &rowLimiter{}
	now := t0
	for i := 0; i < 100000; i++ {
		if !l.allow("a", "guard/deny", 1<<20, now).write {
			t.Fatalf("row %d held with no budget", i)
		}
		now = now.Add(time.Second)
	}
	if due, next := l.refilled(now); due != nil || next != 0 {
		t.Error(due, next)
	}
}

func TestTabBudgetDrain(t *testing.T) {
	l := &rowLimiter{perDay: 86400 * 100}
	now := t0
	for l.allow("a", "guard/deny", 5000, now).write {
	}
	l.allow("b", "guard/deny", 5000, now)
	l.allow("a", "download/blocked", 700, now)
	got := l.drain("a")
	if len(got) != 2 {
		t.Fatalf("%+v", got)
	}
	if _, ok := l.tabs["a"]; ok {
		t.Error("a closed tab's budget is kept")
	}
	if _, ok := l.tabs["b"]; !ok {
		t.Error("another tab's budget went")
	}
	if got := l.drain(""); len(got) != 0 {
		t.Errorf("%+v", got)
	}
}

// Through the manager: rows past the budget land in the trail as
// suppressed rows, countable per verdict, when the tab closes.
func TestLimitedAuditWritesSummaries(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "audit.jsonl")
	al, err := audit.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer al.Close()
	m := New(Config{Audit: al, AuditTabBytesPerDay: 86400 * 50})
	const n = 400
	for i := 0; i < n; i++ {
		m.budget.write("T1", "guard/deny", audit.Row{Kind: "guard", Status: "deny", Extra: map[string]any{
			"tab_id": "T1", "request_url": "https://example.com/" + strings.Repeat("x", 1000)}})
	}
	// Rows of the agent's own calls are never held.
	for i := 0; i < 10; i++ {
		m.audit(audit.Row{Kind: "tool", Tool: "navigate", Status: "ok"})
	}
	m.budget.flush("s", "T1")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var guard, held, tools int
	var guardBytes, heldBytes int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r map[string]any
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		switch r["kind"] {
		case "guard":
			guard++
			guardBytes += int64(len(sc.Bytes()) + 1)
		case "tool":
			tools++
		case "suppressed":
			if r["status"] != "guard/deny" || r["tab_id"] != "T1" || r["limit"] != "budget" || r["since"] == nil || r["last"] == nil {
				t.Errorf("summary %v", r)
			}
			held += int(r["count"].(float64))
			heldBytes += int64(r["bytes"].(float64))
		}
	}
	if guard+held != n {
		t.Errorf("%d written + %d held back != %d", guard, held, n)
	}
	if guardBytes > 86400*50/budgetBurstDiv {
		t.Errorf("%d bytes written, over the burst", guardBytes)
	}
	if held == 0 || heldBytes < int64(held)*1000 {
		t.Errorf("held back %d rows, %d bytes", held, heldBytes)
	}
	if tools != 10 {
		t.Errorf("%d tool rows", tools)
	}
}

// The timer's path: a held tab whose budget refilled has its summaries
// written though the page sends nothing more, and the timer is armed for
// when that will be.
func TestRefillTimerWritesSummaries(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	al, err := audit.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer al.Close()
	m := New(Config{Audit: al, AuditTabBytesPerDay: 86400 * 50})
	for i := 0; i < 100; i++ {
		m.budget.write("T1", "send/deny", audit.Row{Kind: "send", Status: "deny", Extra: map[string]any{"tab_id": "T1", "pad": strings.Repeat("x", 500)}})
	}
	m.budget.refill.Lock()
	armed, at := m.budget.refill.timer != nil, m.budget.refill.at
	m.budget.refill.Unlock()
	if !armed {
		t.Fatal("no refill timer for a held tab")
	}
	if d := time.Until(at); d < 60*time.Second || d > 100*time.Second {
		t.Errorf("refill timer in %v, want about 87 s", d)
	}
	// As if that time had come.
	m.budget.rows.mu.Lock()
	m.budget.rows.tabs["T1"].bytes = m.budget.rows.burst()
	m.budget.rows.mu.Unlock()
	m.budget.flushRefilled()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var held, written int
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r["kind"] == "suppressed" {
			held += int(r["count"].(float64))
		} else {
			written++
		}
	}
	if held == 0 || held+written != 100 {
		t.Errorf("%d written + %d held back != 100", written, held)
	}
	if _, next := m.budget.rows.refilled(time.Now()); next != 0 {
		t.Error("the tab is still held")
	}
	m.budget.refill.Lock()
	if m.budget.refill.timer != nil {
		t.Error("a timer armed with nothing held")
	}
	m.budget.refill.Unlock()
}
