package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// EvilOrigin and EvilHost are what a hostile web page or a DNS-rebinding
// name would send.
const (
	EvilOrigin = "http://evil.example"
	EvilHost   = "evil.example"
)

// probeTimeout bounds each request doctor makes.
const probeTimeout = 3 * time.Second

var loopback4 = netip.MustParseAddr("127.0.0.1")

// client speaks to loopback directly: a proxy from the environment must
// neither see these requests nor answer for the server.
var client = &http.Client{
	Timeout: probeTimeout,
	Transport: &http.Transport{
		Proxy:             nil,
		DisableKeepAlives: true,
	},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// CheckListeners checks, from /proc, that every listening TCP socket of pid
// and its family is bound to 127.0.0.1, and that neither [::1] nor any other
// address of this machine accepts a connection on those ports.
func CheckListeners(pid int) Check {
	c, _ := checkListeners(pid)
	return c
}

func checkListeners(pid int) (Check, []Listener) {
	ls, err := Listeners(pid)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !procAvailable() {
			return skip(NameListeners, "no /proc on this system: listening sockets cannot be read from outside"), nil
		}
		return fail(NameListeners, "cannot read the listening sockets: "+redact(err.Error(), 0, ""),
			"run lyrad doctor as the user that runs the browser (or as root)"), nil
	}
	return judgeListeners(ls), ls
}

// judgeListeners is the verdict on a set of listeners: each must be on
// 127.0.0.1, and dials to [::1] and to the machine's other addresses on
// their ports must fail. Port numbers are never put in the detail.
func judgeListeners(ls []Listener) Check {
	var bad []string
	ports := map[uint16]bool{}
	for _, l := range ls {
		ports[l.Addr.Port()] = true
		if l.Addr.Addr() == loopback4 {
			continue
		}
		bad = append(bad, describeBind(l))
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fail(NameListeners, strings.Join(bad, "; "),
			"lyrad launches the browser with --remote-debugging-address=127.0.0.1: stop whatever started this listener, and remove any --remote-debugging-address or listening flag added through CHROMIUM_FLAGS, /etc/chromium.d or a wrapper script")
	}
	if len(ls) == 0 {
		return pass(NameListeners, "no listening TCP socket")
	}
	var reached []string
	others := otherAddrs()
	for p := range ports {
		if dialOK(netip.AddrPortFrom(netip.IPv6Loopback(), p)) {
			reached = append(reached, "[::1] accepts a connection on the port")
		}
		for _, a := range others {
			if dialOK(netip.AddrPortFrom(a, p)) {
				reached = append(reached, a.String()+" accepts a connection on the port")
			}
		}
	}
	if len(reached) > 0 {
		sort.Strings(reached)
		return fail(NameListeners, strings.Join(dedupe(reached), "; "),
			"something answers on the port at an address other than 127.0.0.1: find it with ss -ltnp and stop it")
	}
	n := "1 listening socket"
	if len(ls) > 1 {
		n = strconv.Itoa(len(ls)) + " listening sockets"
	}
	return pass(NameListeners, fmt.Sprintf("%s, all on 127.0.0.1 (read from /proc, as a scanner would); [::1] and %d other address(es) of this machine refuse the port", n, len(others)))
}

func describeBind(l Listener) string {
	who := fmt.Sprintf("pid %d", l.PID)
	if l.PID == 0 {
		who = "a socket"
	}
	a := l.Addr.Addr()
	switch {
	case a == netip.IPv4Unspecified():
		return who + " listens on 0.0.0.0 (every IPv4 interface)"
	case a == netip.IPv6Unspecified():
		return who + " listens on :: (every interface)"
	case a == netip.IPv6Loopback():
		return who + " listens on ::1"
	}
	return who + " listens on " + a.String()
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// otherAddrs are this machine's addresses a scanner could try besides
// 127.0.0.1: every interface address but link-local ones (which need a zone).
func otherAddrs() []netip.Addr {
	ifs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []netip.Addr
	for _, ia := range ifs {
		pfx, err := netip.ParsePrefix(ia.String())
		if err != nil {
			continue
		}
		a := pfx.Addr().Unmap()
		if a == loopback4 || a == netip.IPv6Loopback() || a.IsLinkLocalUnicast() || a.IsMulticast() {
			continue
		}
		out = append(out, a)
	}
	return out
}

func dialOK(ap netip.AddrPort) bool {
	c, err := net.DialTimeout("tcp", ap.String(), 700*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// versionInfo is GET /json/version on the debugging port: what any process
// that finds the port learns without a secret.
type versionInfo struct {
	Browser string `json:"Browser"`
	WSURL   string `json:"webSocketDebuggerUrl"`
}

func getVersion(ctx context.Context, port int, host string) (versionInfo, int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(port)+"/json/version", nil)
	if err != nil {
		return versionInfo{}, 0, "", err
	}
	if host != "" {
		req.Host = host
	}
	resp, err := client.Do(req)
	if err != nil {
		return versionInfo{}, 0, "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var v versionInfo
	if resp.StatusCode == http.StatusOK {
		_ = json.Unmarshal(body, &v)
	}
	return v, resp.StatusCode, string(body), nil
}

// findDevToolsPort returns the port among ls that answers /json/version as
// Chrome's DevTools, or 0.
func findDevToolsPort(ctx context.Context, ls []Listener) int {
	seen := map[uint16]bool{}
	for _, l := range ls {
		p := l.Addr.Port()
		if seen[p] {
			continue
		}
		seen[p] = true
		if v, code, _, err := getVersion(ctx, int(p), ""); err == nil && code == http.StatusOK && v.WSURL != "" {
			return int(p)
		}
	}
	return 0
}

// CheckOriginRefused checks that a WebSocket handshake to the browser's
// DevTools endpoint on 127.0.0.1:port is refused (403) when it carries an
// Origin header, as every web page's would.
func CheckOriginRefused(port int) Check {
	ctx, cancel := context.WithTimeout(context.Background(), 3*probeTimeout)
	defer cancel()
	v, code, _, err := getVersion(ctx, port, "")
	if err != nil {
		return fail(NameOrigin, "GET /json/version on the debugging port failed: "+redact(err.Error(), port, ""),
			"the browser's debugging port does not answer: check that the browser runs")
	}
	if code != http.StatusOK || v.WSURL == "" {
		return fail(NameOrigin, fmt.Sprintf("GET /json/version on the debugging port answered %d without a WebSocket path", code),
			"the port does not answer as Chrome's DevTools: check which browser lyrad launches (--chrome)")
	}
	u, err := url.Parse(v.WSURL)
	if err != nil || u.Path == "" {
		return fail(NameOrigin, "GET /json/version on the debugging port gave an unreadable WebSocket path", "check which browser lyrad launches (--chrome)")
	}
	wsURL := "ws://127.0.0.1:" + strconv.Itoa(port) + u.Path
	exposure := "; note: GET /json/version answers on the debugging port and hands out the WebSocket path without a secret, so a local process that finds the port can still attach: the residual exposure Chrome leaves"

	conn, resp, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{
		HTTPClient: client,
		HTTPHeader: http.Header{"Origin": {EvilOrigin}},
	})
	if err == nil {
		conn.Close(websocket.StatusNormalClosure, "")
		return fail(NameOrigin, "a handshake carrying Origin: "+EvilOrigin+" was accepted: any web page could drive this browser"+exposure,
			"remove --remote-allow-origins from CHROMIUM_FLAGS, /etc/chromium.d or the wrapper script, or upgrade the browser (Chrome 111 and later refuse such handshakes)")
	}
	if resp == nil || resp.StatusCode != http.StatusForbidden {
		got := redact(err.Error(), port, u.Path)
		if resp != nil {
			got = fmt.Sprintf("status %d", resp.StatusCode)
		}
		return fail(NameOrigin, "a handshake carrying Origin: "+EvilOrigin+" was not refused with 403 ("+got+")"+exposure,
			"upgrade the browser: Chrome refuses a DevTools handshake with an Origin header with 403")
	}
	// The same handshake without an Origin tells apart "refused for the
	// Origin" from "refused for everyone".
	control := "without an Origin the same handshake is accepted, so the Origin is what is refused"
	if c2, r2, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPClient: client}); err == nil {
		c2.Close(websocket.StatusNormalClosure, "")
	} else if r2 != nil {
		control = fmt.Sprintf("without an Origin the handshake got %d too", r2.StatusCode)
	} else {
		control = "without an Origin the handshake failed too: " + redact(err.Error(), port, u.Path)
	}
	return pass(NameOrigin, "a handshake carrying Origin: "+EvilOrigin+" got 403; "+control+exposure)
}

// CheckForeignHostRefused checks that the debugging port refuses a request
// naming another host (DNS rebinding: a page on a name that resolves to
// 127.0.0.1 would otherwise read /json/version).
func CheckForeignHostRefused(port int) Check {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	v, code, body, err := getVersion(ctx, port, EvilHost)
	if err != nil {
		return fail(NameForeignHost, "GET /json/version on the debugging port failed: "+redact(err.Error(), port, ""),
			"the browser's debugging port does not answer: check that the browser runs")
	}
	if code == http.StatusOK && (v.WSURL != "" || strings.Contains(body, "webSocketDebuggerUrl")) {
		return fail(NameForeignHost, "GET /json/version with Host: "+EvilHost+" answered 200 with the WebSocket path: a DNS-rebinding page could find and drive the browser",
			"upgrade the browser: Chrome refuses a foreign Host on its debugging port")
	}
	detail := fmt.Sprintf("GET /json/version with Host: %s answered %d", EvilHost, code)
	if msg := strings.TrimSpace(firstLine(body)); msg != "" && len(msg) < 200 {
		detail += " (" + redact(msg, port, "") + ")"
	}
	return pass(NameForeignHost, detail)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// secretRE matches what would locate the debugging port: endpoints with a
// port, WebSocket URLs and DevTools paths.
var secretRE = regexp.MustCompile(`wss?://\S+|/devtools/\S+|(?:\[[0-9a-fA-F:.]+\]|[0-9]{1,3}(?:\.[0-9]{1,3}){3}|localhost):\d+`)

// redact strips endpoints from s, and the port number and path when given.
func redact(s string, port int, path string) string {
	if path != "" {
		s = strings.ReplaceAll(s, path, "[path]")
	}
	s = secretRE.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "ws") || strings.HasPrefix(m, "/devtools/") {
			return "[the debugging port]"
		}
		host := m[:strings.LastIndexByte(m, ':')]
		return host + ":[port]"
	})
	if port > 0 {
		s = regexp.MustCompile(`\b`+strconv.Itoa(port)+`\b`).ReplaceAllString(s, "[port]")
	}
	return s
}

func procAvailable() bool {
	_, err := os.Stat(procRoot + "/self")
	return err == nil
}
