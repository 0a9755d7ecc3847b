// Command pw-tour drives Playwright MCP and `lyrad stdio --surface
// playwright` with the same client calls, one after the other, in one run:
// navigate, snapshot, click by ref, type, select, press, hover, tabs,
// dialog, upload, wait_for, screenshot, back. Each ref is found by name in
// the snapshot the server answered, as an agent finds it. It prints each
// step's time and fails on the first error of either server; it also
// prints the size of each server's tools/list.
//
//	go run ./e2e/cmd/pw-tour -lyrad bin/lyrad -playwright-mcp /tmp/pwmcp [-browser /usr/bin/chromium]
//
// The site is served here, on 127.0.0.1.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/lyrad/lyrad/e2e/benchkit"
)

const home = `<!doctype html><title>Tour</title>
<h1>Tour</h1>
<form onsubmit="event.preventDefault(); document.getElementById('out').textContent = 'Sent ' + this.elements.name.value">
<label>Name <input name="name"></label>
<label>Size <select name="size"><option value="s">Small</option><option value="l">Large</option></select></label>
<label>Attachment <input type="file" name="file"></label>
<button>Submit</button>
</form>
<p id="out"></p>
<button onclick="alert('Saved')">Alert</button>
<a href="/menu" onmouseover="document.getElementById('out').textContent='Hovered'">Menu</a>
<a href="/other" target="_blank">Other</a>
`

const other = `<!doctype html><title>Other</title><h1>Other page</h1><a href="/">Home</a>`

func main() {
	bin := flag.String("lyrad", "bin/lyrad", "lyrad binary")
	pwDir := flag.String("playwright-mcp", os.Getenv("PLAYWRIGHT_MCP_DIR"), "where @playwright/mcp is installed")
	browser := flag.String("browser", "/usr/bin/chromium", "the browser both servers run")
	flag.Parse()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/", page(home))
	mux.HandleFunc("/other", page(other))
	mux.HandleFunc("/menu", page(other))
	go http.Serve(ln, mux)
	base := "http://" + ln.Addr().String()

	failed := false
	for _, start := range []func() (*benchkit.Peer, error){
		func() (*benchkit.Peer, error) {
			if *pwDir == "" {
				return nil, fmt.Errorf("no -playwright-mcp")
			}
			return benchkit.StartPlaywright(benchkit.PlaywrightScript(*pwDir), *browser)
		},
		func() (*benchkit.Peer, error) { return startLyrad(*bin, *browser, base) },
	} {
		p, err := start()
		if err != nil {
			fmt.Fprintln(os.Stderr, "pw-tour:", err)
			failed = true
			continue
		}
		// The file to upload, where each server takes files from (Playwright
		// MCP: its output directory; lyrad: its upload roots).
		upload := filepath.Join(p.Tmp, "out", "upload.txt")
		check(os.MkdirAll(filepath.Dir(upload), 0o700))
		check(os.WriteFile(upload, []byte("hello\n"), 0o600))
		if err := tour(p, base, upload); err != nil {
			fmt.Fprintf(os.Stderr, "pw-tour: %s: %v\n", p.Name, err)
			failed = true
		}
		p.Close()
	}
	if failed {
		os.Exit(1)
	}
}

// startLyrad runs `lyrad stdio --surface playwright` headless on a data
// directory of its own, the tour's site trusted by the operator for
// navigation and sends (--allowed-origins, LYRA_BROWSER_TRUSTED_SEND_ORIGINS:
// the client asks no user) and its directory an upload root.
func startLyrad(bin, browser, site string) (*benchkit.Peer, error) {
	tmp, err := os.MkdirTemp("", "pw-tour-lyrad")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "stdio", "--surface", "playwright", "--headless", "--executable-path", browser, "--data-dir", filepath.Join(tmp, "data"), "--allowed-origins", site)
	cmd.Env = append(os.Environ(), "LYRA_BROWSER_UPLOAD_ROOTS="+filepath.Join(tmp, "out"), "LYRA_BROWSER_TRUSTED_SEND_ORIGINS="+site)
	return benchkit.StartPeer("lyrad --surface playwright", cmd, tmp)
}

var refOf = regexp.MustCompile(`\[ref=(e\d+)\]`)

// ref is the ref of the first snapshot line with role and name.
func ref(snap, role, name string) (string, error) {
	for _, l := range strings.Split(snap, "\n") {
		if strings.Contains(l, "- "+role+" "+fmt.Sprintf("%q", name)) {
			if m := refOf.FindStringSubmatch(l); m != nil {
				return m[1], nil
			}
		}
	}
	return "", fmt.Errorf("no %s %q in the snapshot:\n%s", role, name, snap)
}

func tour(p *benchkit.Peer, base, upload string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	list, err := p.CS.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(list)
	fmt.Printf("%s: tools/list %d tools, %d bytes\n", p.Name, len(list.Tools), len(b))

	var snap string
	step := func(name string, args map[string]any) error {
		start := time.Now()
		out, err := p.Call(name, args)
		fmt.Printf("  %-24s %6.0f ms\n", name, float64(time.Since(start).Microseconds())/1000)
		if err != nil {
			return err
		}
		// Refs are found in a whole snapshot: an acting call's answer on
		// lyrad's surface holds only what it changed.
		if i := strings.Index(out, "### Snapshot\n```yaml\n"); i >= 0 && !strings.Contains(out, "# what changed since the last snapshot") {
			snap = out[i:]
		}
		return nil
	}
	byRef := func(name string, role, label string, args map[string]any) error {
		r, err := ref(snap, role, label)
		if err != nil {
			return err
		}
		if args == nil {
			args = map[string]any{}
		}
		args["target"], args["element"] = r, label
		return step(name, args)
	}
	steps := []func() error{
		func() error { return step("browser_navigate", map[string]any{"url": base + "/"}) },
		func() error { return step("browser_snapshot", nil) },
		func() error { return byRef("browser_type", "textbox", "Name", map[string]any{"text": "Ada"}) },
		func() error {
			return byRef("browser_select_option", "combobox", "Size", map[string]any{"values": []string{"Large"}})
		},
		func() error { return byRef("browser_click", "button", "Submit", nil) },
		func() error { return step("browser_press_key", map[string]any{"key": "Tab"}) },
		func() error { return byRef("browser_hover", "link", "Menu", nil) },
		func() error { return step("browser_wait_for", map[string]any{"text": "Hovered"}) },
		func() error { return step("browser_snapshot", nil) },
		func() error { return byRef("browser_click", "button", "Alert", nil) },
		func() error { return step("browser_handle_dialog", map[string]any{"accept": true}) },
		func() error { return step("browser_snapshot", nil) },
		func() error { return byRef("browser_click", "button", "Attachment", nil) },
		func() error { return step("browser_file_upload", map[string]any{"paths": []string{upload}}) },
		func() error { return step("browser_take_screenshot", map[string]any{"type": "png"}) },
		func() error { return byRef("browser_click", "link", "Other", nil) },
		func() error { return step("browser_tabs", map[string]any{"action": "list"}) },
		func() error { return step("browser_tabs", map[string]any{"action": "select", "index": 0}) },
		func() error { return step("browser_tabs", map[string]any{"action": "close", "index": 1}) },
		func() error { return step("browser_navigate", map[string]any{"url": base + "/other"}) },
		func() error { return step("browser_navigate_back", nil) },
		func() error { return step("browser_wait_for", map[string]any{"text": "Tour"}) },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "pw-tour:", err)
		os.Exit(1)
	}
}
