package cdpconn

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/chrome"
	"github.com/lyrad/lyrad/internal/testenv"
)

// startChromium launches a headless Chromium and returns its browser
// websocket URL. The process group is killed at the end of the test. The
// browser is the one lyrad would find, under the harness's rule
// (testenv.Browser: skips under -short, fails in CI when there is none).
func startChromium(t *testing.T) string {
	t.Helper()
	path := testenv.Browser(t, func() (string, error) {
		f, err := chrome.Find("", "")
		return f.Path, err
	})
	dir := t.TempDir()
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--remote-debugging-port=0",
		"--user-data-dir="+dir, "--no-first-run", "--disable-background-networking", "about:blank")
	// /usr/bin/chromium is a shell wrapper: kill the whole group we started.
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		killGroup(cmd)
		_ = cmd.Wait()
	})

	portFile := filepath.Join(dir, "DevToolsActivePort")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, err := os.ReadFile(portFile); err == nil {
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			if len(lines) == 2 {
				return "ws://127.0.0.1:" + strings.TrimSpace(lines[0]) + strings.TrimSpace(lines[1])
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("chromium wrote no DevToolsActivePort")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestChromium(t *testing.T) {
	wsURL := startChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	closed := make(chan error, 1)
	c, err := Dial(ctx, wsURL, Options{OnClose: func(err error) { closed <- err }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Abort()
	b := c.Browser()

	ver, err := cdp.Call(ctx, b, browser.GetVersion, cdp.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ver.Product, "Chrome") || ver.ProtocolVersion == "" {
		t.Fatalf("version: %+v", ver)
	}
	t.Logf("browser: %s, protocol %s", ver.Product, ver.ProtocolVersion)

	// A browser error comes back as *cdproto.Error.
	err = b.Call(ctx, "Nope.nothing", nil, nil)
	var cerr *cdproto.Error
	if !errors.As(err, &cerr) || !strings.Contains(err.Error(), "Nope.nothing") {
		t.Fatalf("unknown method: %v", err)
	}

	created, cancelCreated := c.Subscribe(target.TargetCreated.Method)
	defer cancelCreated()
	if _, err := cdp.Call(ctx, b, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true}); err != nil {
		t.Fatal(err)
	}
	tgt, err := cdp.Call(ctx, b, target.CreateTarget, target.CreateTargetParams{URL: "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	for seen := false; !seen; {
		select {
		case ev := <-created:
			var p target.EventTargetCreated
			if err := jsonv2.Unmarshal(ev.Params, &p); err != nil {
				t.Fatal(err)
			}
			seen = ev.SessionID == "" && p.TargetInfo != nil && p.TargetInfo.TargetID == tgt.TargetID
		case <-ctx.Done():
			t.Fatal("no Target.targetCreated for the new target")
		}
	}

	flatten := true
	att, err := cdp.Call(ctx, b, target.AttachToTarget, target.AttachToTargetParams{TargetID: tgt.TargetID, Flatten: &flatten})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Session(att.SessionID)

	loaded, cancelLoaded := s.Subscribe(page.LoadEventFired.Method)
	defer cancelLoaded()
	if _, err := cdp.Call(ctx, s, page.Enable, page.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	nav, err := cdp.Call(ctx, s, page.Navigate, page.NavigateParams{URL: "data:text/html,<title>lyrad</title>hello"})
	if err != nil {
		t.Fatal(err)
	}
	if nav.ErrorText != "" || nav.FrameID == "" {
		t.Fatalf("navigate: %+v", nav)
	}
	select {
	case <-loaded:
	case <-ctx.Done():
		t.Fatal("no Page.loadEventFired")
	}

	// A real Fetch.requestPaused with an upload body: the body members are
	// dropped, hasPostData stays.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	paused, cancelPaused := s.Subscribe(fetch.RequestPaused.Method)
	defer cancelPaused()
	if _, err := cdp.Call(ctx, s, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/upload*"}}}); err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("x", 300<<10)
	form := fmt.Sprintf(`data:text/html,<form method=post action="%s/upload"><input name=a value="%s"></form><script>document.forms[0].submit()</script>`, srv.URL, body)
	if _, err := cdp.Call(ctx, s, page.Navigate, page.NavigateParams{URL: form}); err != nil {
		t.Fatal(err)
	}
	select {
	case raw := <-paused:
		var p fetch.EventRequestPaused
		if err := jsonv2.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		if !p.Request.HasPostData || p.Request.Method != "POST" || strings.Contains(string(raw), `"postData"`) || len(raw) > 64<<10 {
			t.Fatalf("requestPaused params (%d bytes): %.500s", len(raw), raw)
		}
		if _, err := cdp.Call(ctx, s, fetch.FailRequest, fetch.FailRequestParams{RequestID: p.RequestID, ErrorReason: "Aborted"}); err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("no Fetch.requestPaused")
	}

	// Closing the target detaches the session: its subscriptions close.
	if _, err := cdp.Call(ctx, b, target.CloseTarget, target.CloseTargetParams(tgt)); err != nil {
		t.Fatal(err)
	}
	func() {
		for {
			select {
			case _, ok := <-loaded:
				if !ok {
					return
				}
			case <-ctx.Done():
				t.Fatal("session subscription not closed after the target closed")
			}
		}
	}()

	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != nil {
		t.Fatalf("OnClose after Close: %v", err)
	}
}

// The package's own errors never show a Chromium ws URL, not even its port.
func TestChromiumDialErrorHidesURL(t *testing.T) {
	wsURL := startChromium(t)
	hostPort, path, _ := strings.Cut(strings.TrimPrefix(wsURL, "ws://"), "/")
	_, port, _ := strings.Cut(hostPort, ":")
	_, err := Dial(context.Background(), "ws://"+hostPort+"/devtools/page/"+path[len("devtools/browser/"):], Options{})
	if err == nil {
		t.Fatal("dial to a wrong path succeeded")
	}
	for _, leak := range []string{port, path, "devtools", "127.0.0.1"} {
		if strings.Contains(err.Error(), leak) {
			t.Fatalf("error %q leaks %q", err, leak)
		}
	}
	t.Logf("dial error: %v", err)
}
