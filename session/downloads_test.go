package session

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/chrome"
	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/policy"
)

func TestURLOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080/file?token=x":      "http://127.0.0.1:8080",
		"HTTPS://User:pw@Example.COM/a#b":         "https://example.com",
		"blob:http://127.0.0.1:9/0f-uuid":         "http://127.0.0.1:9",
		"data:application/octet-stream;base64,AA": "data:",
		"about:blank": "",
		"":            "",
	} {
		if got := urlOrigin(in); got != want {
			t.Errorf("urlOrigin(%q) = %q, want %q", in, got, want)
		}
	}
}

// fileServer serves what the declared-download test asks for, and counts
// what it managed to send.
type fileServer struct {
	*httptest.Server
	mu   sync.Mutex
	sent map[string]int
	done map[string]chan struct{}
}

func (f *fileServer) wrote(path string, n int) {
	f.mu.Lock()
	f.sent[path] += n
	f.mu.Unlock()
}

func (f *fileServer) served(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sent[path]
}

var reportCSV = []byte("a,b\n1,2\n")

func newFileServer(t *testing.T) *fileServer {
	f := &fileServer{sent: map[string]int{}, done: map[string]chan struct{}{"/big": make(chan struct{}), "/endless": make(chan struct{})}}
	attach := func(w http.ResponseWriter, name string) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	}
	stream := func(w http.ResponseWriter, r *http.Request, limit, size int) {
		defer close(f.done[r.URL.Path])
		chunk := bytes.Repeat([]byte("x"), size)
		for i := 0; limit == 0 || i < limit; i++ {
			n, err := w.Write(chunk)
			f.wrote(r.URL.Path, n)
			if err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>plain</title>plain")
	})
	mux.HandleFunc("/report.csv", func(w http.ResponseWriter, r *http.Request) {
		attach(w, "report.csv")
		w.Write(reportCSV)
	})
	// 1 MB, 10 KB every 20 ms, no length: the cap can only be seen crossing.
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		attach(w, "big.bin")
		stream(w, r, 100, 10000)
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		attach(w, "endless.bin")
		stream(w, r, 0, 500) // 25 KB/s: under MAX_BYTES before the timeout
	})
	// Promises 100000 bytes, sends 5000 and hangs up.
	mux.HandleFunc("/truncated", func(w http.ResponseWriter, r *http.Request) {
		attach(w, "cut.bin")
		w.Header().Set("Content-Length", "100000")
		w.Write(bytes.Repeat([]byte("y"), 5000))
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

// TestDeclaredDownloads drives the API an acting call uses, on a real
// browser: a declared file is kept exactly, a taken name numbered, an
// undeclared one blocked and reported, a declared call with no file
// answered not_started, and the caps stop the transfer itself.
func TestDeclaredDownloads(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser: not with -short")
	}
	if _, err := chrome.Find("", ""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("a browser is needed in CI: %v", err)
		}
		t.Skipf("no browser: %v", err)
	}
	srv := newFileServer(t)
	headless := true
	dataDir := t.TempDir()
	m := New(Config{Data: datadir.New(dataDir), Headless: &headless, ConsentChannel: ConsentOff,
		DownloadMaxBytes: 100000, DownloadTimeout: 2 * time.Second})
	t.Cleanup(m.Shutdown)
	c := Caller{ID: "test"}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if _, err := m.Navigate(ctx, c, srv.URL+"/plain", "load", Intent{}); err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	b := m.browser
	m.mu.Unlock()
	tab, err := b.activePage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tabs := []target.ID{tab.ID}
	// A page that navigates to a file, as a click on a link would.
	goTo := func(path string) {
		t.Helper()
		_, err := cdp.Call(ctx, b.conn.Session(tab.SessionID), cdppage.Navigate, cdppage.NavigateParams{URL: srv.URL + path})
		if err != nil {
			t.Logf("navigate %s: %v", path, err)
		}
	}
	declared := func(path string, window time.Duration) DownloadOutcome {
		t.Helper()
		exp, err := b.downloads.Expect(ctx, tabs, c.ID, policy.ScopeOf(srv.URL))
		if err != nil {
			t.Fatal(err)
		}
		defer exp.Close()
		if path != "" {
			goTo(path)
		}
		return exp.Wait(ctx, window)
	}
	dlDir := filepath.Join(dataDir, "downloads")

	out := declared("/report.csv", 10*time.Second)
	if out.Kind != DownloadSaved || out.File.Filename != "report.csv" || out.File.Bytes != int64(len(reportCSV)) || out.File.URLOrigin != srv.URL {
		t.Fatalf("declared download: %+v", out)
	}
	if got, _ := os.ReadFile(filepath.Join(dlDir, "report.csv")); !bytes.Equal(got, reportCSV) {
		t.Errorf("report.csv holds %q", got)
	}
	if out := declared("/report.csv", 10*time.Second); out.Kind != DownloadSaved || out.File.Filename != "report (1).csv" {
		t.Errorf("second declared download: %+v", out)
	}

	start := time.Now()
	if out := declared("", 300*time.Millisecond); out.Kind != DownloadNotStarted {
		t.Errorf("declared, nothing started: %+v", out)
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("not_started took %v", time.Since(start))
	}

	// Nothing declared: blocked, reported, nothing kept.
	start = time.Now()
	goTo("/report.csv")
	bd := b.downloads.AwaitBlocked(ctx, tabs, start, 10*time.Second)
	if bd == nil || bd.Filename != "report.csv" || bd.URLOrigin != srv.URL {
		t.Fatalf("undeclared download: %+v", bd)
	}

	if out := declared("/big", 10*time.Second); out.Kind != DownloadFailed || out.Reason != "too_large" {
		t.Errorf("over MAX_BYTES: %+v", out)
	}
	<-srv.done["/big"]
	if n := srv.served("/big"); n >= 1000000 {
		t.Errorf("the server sent all %d bytes: the transfer was not stopped", n)
	}

	if out := declared("/endless", 10*time.Second); out.Kind != DownloadFailed || out.Reason != "timeout" {
		t.Errorf("endless stream: %+v", out)
	}
	select {
	case <-srv.done["/endless"]:
	case <-time.After(10 * time.Second):
		t.Errorf("the endless stream was never stopped")
	}

	if out := declared("/truncated", 10*time.Second); out.Kind != DownloadFailed || out.Reason != "error" {
		t.Errorf("truncated transfer: %+v", out)
	}

	// Only the two declared files are kept; nothing half done is left.
	ents, _ := os.ReadDir(dlDir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	want := fmt.Sprintf(".incoming-%d|.lyrad-downloads.json|report (1).csv|report.csv", os.Getpid())
	if strings.Join(names, "|") != want {
		t.Errorf("download directory holds %q, want %q", names, want)
	}
	if in, _ := os.ReadDir(b.downloads.store.Incoming()); len(in) != 0 {
		t.Errorf("incoming still holds %d files", len(in))
	}
	l, err := m.ListDownloads(c)
	if err != nil || len(l.Files) != 2 || l.Files[0].Filename != "report.csv" {
		t.Errorf("ListDownloads = %+v, %v", l, err)
	}
}

func TestResponseLooksLikeADownload(t *testing.T) {
	for cd, want := range map[string]bool{
		`attachment; filename="a.csv"`: true,
		`ATTACHMENT`:                   true,
		` attachment ;filename=x`:      true,
		`inline; filename="a.pdf"`:     false,
		``:                             false,
	} {
		if got := isAttachment(cd); got != want {
			t.Errorf("isAttachment(%q) = %v", cd, got)
		}
	}
	for _, c := range []struct {
		r    cdpguard.Response
		want string
	}{
		{cdpguard.Response{ContentDisposition: `attachment; filename="../r.csv"`, URL: "http://h/x"}, "../r.csv"},
		{cdpguard.Response{ContentDisposition: `attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`, URL: "http://h/x"}, "résumé.pdf"},
		{cdpguard.Response{ContentDisposition: `attachment`, URL: "http://h/files/data.bin?token=secret"}, "data.bin"},
		{cdpguard.Response{URL: "http://h/"}, ""},
	} {
		if got := responseFilename(c.r); got != c.want {
			t.Errorf("responseFilename(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}

func TestDownloadScope(t *testing.T) {
	a := "http://127.0.0.1:8080"
	for _, c := range []struct {
		url, doc string
		pays     bool
	}{
		{a + "/f?x=1", "", true},
		{"HTTP://127.0.0.1:8080/f", "", true},
		{"blob:" + a + "/0f-uuid", "http://127.0.0.2:9/", true}, // the blob's maker, not the frame
		{"http://127.0.0.2:8080/f", a + "/", false},             // another site, started from A
		{"http://127.0.0.1:8081/f", a + "/", false},             // another port
		{"https://127.0.0.1:8080/f", a + "/", false},            // another scheme
		{"blob:http://127.0.0.2:9/0f-uuid", a + "/", false},
		{"data:application/octet-stream;base64,AA", a + "/page", true},
		{"data:application/octet-stream;base64,AA", "http://127.0.0.2:9/", false},
		{"data:application/octet-stream;base64,AA", "", false},
		{"data:application/octet-stream;base64,AA", "about:blank", false},
		{"about:blank", a, false},
	} {
		e := &Expectation{from: policy.ScopeOf(a + "/page")}
		if got := e.pays(c.url, c.doc); got != c.pays {
			t.Errorf("pays(%q, %q) = %v, want %v", c.url, c.doc, got, c.pays)
		}
	}
}
