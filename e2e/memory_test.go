package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bigTextPage is a page whose script writes about size bytes of text, in
// lines, into one <pre>: the page's text, not its HTML, is large.
func bigTextPage(size int) string {
	return fmt.Sprintf(`<!doctype html><title>big</title><body><pre id=t></pre><script>
const parts = []; let n = 0, size = 0;
while (size < %d) { const l = "The quick brown fox jumps over the lazy dog, line " + (n++) + "\n"; parts.push(l); size += l.length; }
document.getElementById("t").textContent = parts.join("");
document.title = "ready";
</script>`, size)
}

// readBig starts a lyrad of its own, reads a page of size bytes of text
// through read_page (text: first page, a later page, the last page; tree:
// the whole map) and answers lyrad's RSS before, its peak growth while
// reading, and its RSS after, in KB.
func readBig(t *testing.T, size int) (base, peak, after int) {
	t.Helper()
	a := newSite(t, "127.0.0.1")
	a.page("/", "<title>home</title>home")
	a.page("/big", bigTextPage(size))
	a.page("/small", bigTextPage(256<<10))
	l := startServe(t, t.TempDir())
	defer l.stop(t)
	cs := l.connectHTTP(t, proto2026)
	// The same reads of a small page first: what lyrad holds after its
	// first reads of any page is not the big page's.
	readPages(t, cs, a.URL+"/small", 256<<10)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/"}), "ok")
	time.Sleep(3 * time.Second)
	pid := l.cmd.Process.Pid
	base = rssKB(t, pid)
	// The peak from here on: VmHWM counts from the process start, so it is
	// reset (clear_refs 5) when the kernel lets us.
	resetHWM(pid)
	base = min(base, hwmKB(t, pid))
	readPages(t, cs, a.URL+"/big", size)
	peak = hwmKB(t, pid) - base
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/"}), "ok")
	// The Go runtime hands freed memory back in the background, slower on
	// a loaded machine: wait for it (up to 30 s), not for a fixed time.
	after = rssKB(t, pid)
	for deadline := time.Now().Add(30 * time.Second); after-base > 5<<10 && time.Now().Before(deadline); after = rssKB(t, pid) {
		time.Sleep(500 * time.Millisecond)
	}
	return base, peak, after
}

// navigateLoaded navigates to u and waits for its load however long a
// loaded machine takes: a page of megabytes, or of 200,000 links built by
// script, takes Chromium seconds, and over a minute beside other browsers.
// These tests measure memory, not load time.
func navigateLoaded(t *testing.T, cs *mcp.ClientSession, u string) {
	t.Helper()
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": u, "wait_until": "commit"}), "ok")
	for i := 0; ; i++ {
		env := call(t, cs, "wait_for", map[string]any{"load_state": "load", "timeout_ms": 30000})
		if env["status"] == "ok" {
			return
		}
		if env["status"] != "timeout" || i == 5 {
			t.Fatalf("%s did not load: %v", u, env)
		}
	}
}

// readPages navigates to u, a page of size bytes of text, and reads it:
// text (the first page, a later page, the last page) and tree.
func readPages(t *testing.T, cs *mcp.ClientSession, u string, size int) {
	t.Helper()
	navigateLoaded(t, cs, u)
	env := call(t, cs, "read_page", nil)
	wantStatus(t, env, "ok")
	total := int(env["total_chars"].(float64))
	if total < size*9/10 {
		t.Fatalf("the page has %d characters of text, want about %d", total, size)
	}
	if !strings.HasPrefix(env["text"].(string), "The quick brown fox jumps over the lazy dog, line 0\n") || env["truncated"] != true {
		t.Fatalf("first page: %.200v", env)
	}
	next := int(env["next_offset"].(float64))
	env = call(t, cs, "read_page", map[string]any{"offset": next, "max_chars": 200000})
	wantStatus(t, env, "ok")
	if got := env["text"].(string); !strings.HasPrefix(got, "The quick brown fox") || len([]rune(got)) < 190000 {
		t.Fatalf("second page starts %.100q, %d characters", got, len([]rune(got)))
	}
	env = call(t, cs, "read_page", map[string]any{"offset": total - 500, "max_chars": 200000})
	wantStatus(t, env, "ok")
	if got := env["text"].(string); len([]rune(got)) != 500 || env["truncated"] != false {
		t.Fatalf("last page: %d characters, %v", len([]rune(got)), env["truncated"])
	}
	env = call(t, cs, "read_page", map[string]any{"mode": "tree"})
	wantStatus(t, env, "ok")
}

// resetHWM resets a process's peak RSS to its current RSS (Linux 4.0+).
func resetHWM(pid int) {
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// TestReadHugeText: read_page of pages of 8 and 32 MB of text. lyrad reads
// the slice it answers, not the page: its peak growth for the 32 MB page is
// at most that of the 8 MB page plus 10 MB, and it is back within 5 MB of
// where it started once the reads are done.
func TestReadHugeText(t *testing.T) {
	parallel(t)
	needBrowser(t)
	base8, peak8, after8 := readBig(t, 8<<20)
	base32, peak32, after32 := readBig(t, 32<<20)
	t.Logf("8 MB page: lyrad RSS %d KB, peak +%d KB, after %d KB (%+d KB)", base8, peak8, after8, after8-base8)
	t.Logf("32 MB page: lyrad RSS %d KB, peak +%d KB, after %d KB (%+d KB)", base32, peak32, after32, after32-base32)
	if peak32 > peak8+10<<10 {
		t.Errorf("lyrad's peak grew %d KB for the 32 MB page, %d KB for the 8 MB one: want at most 10 MB more", peak32, peak8)
	}
	if after32-base32 > 5<<10 {
		t.Errorf("lyrad kept %d KB after reading the 32 MB page, want at most 5 MB", after32-base32)
	}
}

// TestReadHugeTree: a page of 200k links. The tree read lists at most
// 10000 of them (on-screen first) and says how many it left out; lyrad
// never holds the rest.
func TestReadHugeTree(t *testing.T) {
	parallel(t)
	needBrowser(t)
	const links = 200000
	a := newSite(t, "127.0.0.1")
	a.page("/", "<title>home</title><a href=/x>one link</a>")
	a.page("/big", fmt.Sprintf(`<!doctype html><title>links</title><body><script>
const parts = [];
for (let i = 0; i < %d; i++) parts.push('<a href="/p' + i + '">item ' + i + '</a> ');
document.body.innerHTML = parts.join("");
</script>`, links))
	l := startServe(t, t.TempDir())
	defer l.stop(t)
	cs := l.connectHTTP(t, proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/"}), "ok")
	wantStatus(t, call(t, cs, "read_page", map[string]any{"mode": "tree"}), "ok")
	time.Sleep(2 * time.Second)
	pid := l.cmd.Process.Pid
	resetHWM(pid)
	base := min(rssKB(t, pid), hwmKB(t, pid))
	navigateLoaded(t, cs, a.URL+"/big")
	env := call(t, cs, "read_page", map[string]any{"mode": "tree", "max_chars": 1000})
	wantStatus(t, env, "ok")
	peak := hwmKB(t, pid) - base
	elements, _ := env["elements"].(float64)
	unlisted, _ := env["unlisted"].(float64)
	t.Logf("%d links: %v listed, %v unlisted; lyrad RSS %d KB, peak +%d KB", links, elements, unlisted, base, peak)
	if int(elements) > 10000 || int(elements)+int(unlisted) != links {
		t.Errorf("elements %v, unlisted %v: want at most 10000 listed and the rest of %d counted", elements, unlisted, links)
	}
	if !strings.Contains(env["tree"].(string), `link "item 0" -> /p0`) {
		t.Errorf("the first link (on screen) is not listed first: %.300q", env["tree"])
	}
	if peak > 40<<10 {
		t.Errorf("lyrad's peak grew %d KB for a tree read of %d links, want under 40 MB", peak, links)
	}
}
