package launch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"go.uber.org/zap"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/datadir"
)

// The --user-agent switch that keeps "Headless" out of the UA string also
// empties Chrome's high-entropy client hints (fullVersionList, architecture,
// bitness, platformVersion, uaFullVersion): a page could tell lyrad apart by
// that. So every target is handed back what the browser reports with a
// window, through Emulation.setUserAgentOverride: worked out from its
// version on a first launch (predictLinuxHints) and checked against what
// it sends (checkHints), or, for browsers lyrad cannot work it out for,
// asked of the browser started once without the switch (learnUAMetadata).
// browser-ua.json remembers it for the launches after.

// uaBrand and uaMetadata are the client hints as browser-ua.json keeps
// them, in the names of CDP's Emulation.UserAgentMetadata.
type (
	uaBrand    = datadir.Brand
	uaMetadata = datadir.ClientHints
)

// uaOverride is Emulation.setUserAgentOverride's parameters. Platform
// (navigator.platform) and acceptLanguage stay unset: Chrome then keeps
// its own.
type uaOverride struct {
	UserAgent         string      `json:"userAgent"`
	UserAgentMetadata *uaMetadata `json:"userAgentMetadata,omitempty"`
}

// learnPage asks for every high-entropy hint and posts the answer back.
const learnPage = `<!doctype html><title></title><script>
(async function() {
	const u = navigator.userAgentData;
	let r = {ok: false};
	try {
		if (u) {
			const h = await u.getHighEntropyValues(['architecture', 'bitness', 'brands', 'formFactors', 'fullVersionList', 'mobile', 'model', 'platform', 'platformVersion', 'uaFullVersion', 'wow64']);
			r = {ok: true, brands: u.brands, mobile: u.mobile, platform: u.platform,
				fullVersionList: h.fullVersionList, fullVersion: h.uaFullVersion, platformVersion: h.platformVersion,
				architecture: h.architecture, model: h.model, bitness: h.bitness, wow64: h.wow64, formFactors: h.formFactors};
		}
	} catch (e) {}
	fetch(location.pathname + 'r', {method: 'POST', body: JSON.stringify(r)});
})();
</script>`

// learnUAMetadata opens a page in a throwaway browser context on a
// loopback server of our own (a secure context, so userAgentData answers
// in full) and reads what the browser reports. It must run before the
// guard attaches: the page is ours and is never held. Nothing of it stays
// in the profile.
func learnUAMetadata(ctx context.Context, conn *cdpconn.Conn) (*uaMetadata, error) {
	raw, err := askBrowser(ctx, conn, nil, func(w http.ResponseWriter, r *http.Request) []byte {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			io.WriteString(w, learnPage)
			return nil
		}
		b, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		return b
	})
	if err != nil {
		return nil, err
	}
	var r struct {
		OK bool `json:"ok"`
		uaMetadata
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	if !r.OK || len(r.Brands) == 0 {
		return nil, errors.New("the browser reports no user agent client hints")
	}
	md := r.uaMetadata
	return &md, nil
}

// learnLowEntropyHints reads the brands, platform and mobile flag the
// browser sends (Sec-CH-UA, Sec-CH-UA-Platform, Sec-CH-UA-Mobile) on a
// navigation to a loopback server of our own, answered 204 so that no
// document is ever made: no renderer has to start for it, which makes it
// about ten times quicker than learnUAMetadata's page. The same rules as
// there: in a throwaway context, before the guard or exempt from it (own).
func learnLowEntropyHints(ctx context.Context, conn *cdpconn.Conn, own func(cdp.BrowserContextID) func()) (*uaMetadata, error) {
	raw, err := askBrowser(ctx, conn, own, func(w http.ResponseWriter, r *http.Request) []byte {
		w.WriteHeader(http.StatusNoContent)
		h := map[string]string{}
		for _, k := range []string{"Sec-Ch-Ua", "Sec-Ch-Ua-Platform", "Sec-Ch-Ua-Mobile"} {
			h[k] = r.Header.Get(k)
		}
		b, _ := json.Marshal(h)
		return b
	})
	if err != nil {
		return nil, err
	}
	var h map[string]string
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, err
	}
	return parseLowEntropyHints(h["Sec-Ch-Ua"], h["Sec-Ch-Ua-Platform"], h["Sec-Ch-Ua-Mobile"])
}

// parseLowEntropyHints reads the three low-entropy client hint headers
// (structured fields: a list of strings with a "v" parameter, a string, a
// boolean).
func parseLowEntropyHints(ua, platform, mobile string) (*uaMetadata, error) {
	md := &uaMetadata{}
	rest := strings.TrimSpace(ua)
	for rest != "" {
		brand, r, ok := sfString(rest)
		if !ok {
			return nil, fmt.Errorf("unreadable Sec-CH-UA %q", ua)
		}
		r, ok = strings.CutPrefix(strings.TrimLeft(r, " "), ";v=")
		if !ok {
			return nil, fmt.Errorf("unreadable Sec-CH-UA %q", ua)
		}
		version, r, ok := sfString(r)
		if !ok {
			return nil, fmt.Errorf("unreadable Sec-CH-UA %q", ua)
		}
		md.Brands = append(md.Brands, uaBrand{Brand: brand, Version: version})
		r = strings.TrimLeft(r, " ")
		if r != "" {
			if r, ok = strings.CutPrefix(r, ","); !ok || strings.TrimLeft(r, " ") == "" {
				return nil, fmt.Errorf("unreadable Sec-CH-UA %q", ua)
			}
		}
		rest = strings.TrimLeft(r, " ")
	}
	if len(md.Brands) == 0 {
		return nil, errors.New("the browser sends no Sec-CH-UA")
	}
	p, r, ok := sfString(platform)
	if !ok || r != "" {
		return nil, fmt.Errorf("unreadable Sec-CH-UA-Platform %q", platform)
	}
	md.Platform = p
	switch mobile {
	case "?0":
	case "?1":
		md.Mobile = true
	default:
		return nil, fmt.Errorf("unreadable Sec-CH-UA-Mobile %q", mobile)
	}
	return md, nil
}

// sfString reads one structured-field string ("...", with \" and \\
// escapes) off the front of s.
func sfString(s string) (v, rest string, ok bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], true
		case '\\':
			if i+1 == len(s) || (s[i+1] != '"' && s[i+1] != '\\') {
				return "", s, false
			}
			i++
			b.WriteByte(s[i])
		default:
			if c < 0x20 || c > 0x7e {
				return "", s, false
			}
			b.WriteByte(c)
		}
	}
	return "", s, false
}

// askBrowser opens a page in a throwaway browser context on a loopback
// server of our own, at a path no one else can guess, and returns what
// answer (which writes the response) makes of the first request that it
// returns something for. It must run before the guard attaches: the page
// is ours and is never held. Nothing of it stays in the profile.
//
// With own set (the guard's Own), it runs while the browser is guarded:
// own exempts the throwaway context, whose page never commits a document,
// from the guard.
func askBrowser(ctx context.Context, conn *cdpconn.Conn, own func(cdp.BrowserContextID) func(), answer func(w http.ResponseWriter, r *http.Request) []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	base := "/" + hex.EncodeToString(nonce[:]) + "/"
	got := make(chan []byte, 1)
	mux := http.NewServeMux()
	mux.HandleFunc(base, func(w http.ResponseWriter, r *http.Request) {
		if (r.Method == http.MethodGet && r.URL.Path == base) || (r.Method == http.MethodPost && r.URL.Path == base+"r") {
			if b := answer(w, r); b != nil {
				select {
				case got <- b:
				default:
				}
			}
			return
		}
		http.NotFound(w, r)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	b := conn.Browser()
	bc, err := cdp.Call(ctx, b, target.CreateBrowserContext, target.CreateBrowserContextParams{})
	if err != nil {
		return nil, fmt.Errorf("create browser context: %w", err)
	}
	var release func()
	if own != nil {
		release = own(bc.BrowserContextID)
	}
	defer func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer dcancel()
		_, _ = cdp.Call(dctx, b, target.DisposeBrowserContext, target.DisposeBrowserContextParams(bc))
		if release != nil {
			release()
		}
	}()
	if _, err := cdp.Call(ctx, b, target.CreateTarget, target.CreateTargetParams{URL: "http://" + ln.Addr().String() + base, BrowserContextID: bc.BrowserContextID}); err != nil {
		return nil, fmt.Errorf("open the page: %w", err)
	}
	select {
	case raw := <-got:
		return raw, nil
	case <-ctx.Done():
		return nil, errors.New("the page did not answer")
	}
}

// greasedBrands is the brand list Chromium sends (Sec-CH-UA) for a major
// version, as components/embedder_support/user_agent_utils.cc makes it
// (GenerateBrandVersionList with the updated GREASE algorithm, on by
// default since Chrome 103): a made-up "Not?A?Brand" with a version, and
// "Chromium", then the product's own brand (Google Chrome's) when it has
// one, in an order that turns with the major version. Measured values:
// Chromium 156 sends "Not:A-Brand";v="8", "Chromium";v="156"; Chrome 124
// "Chromium";v="124", "Google Chrome";v="124", "Not-A.Brand";v="99".
// launch checks the prediction against what the browser sends
// (checkHints) and keeps the browser's own word.
func greasedBrands(major int, brand string) []uaBrand {
	chars := []string{" ", "(", ":", "-", ".", "/", ")", ";", "=", "?", "_"}
	versions := []string{"8", "99", "24"}
	grease := uaBrand{Brand: "Not" + chars[major%len(chars)] + "A" + chars[(major+1)%len(chars)] + "Brand", Version: versions[major%len(versions)]}
	v := strconv.Itoa(major)
	chromium := uaBrand{Brand: "Chromium", Version: v}
	if brand == "" || brand == "Chromium" {
		list := make([]uaBrand, 2)
		list[major%2], list[(major+1)%2] = grease, chromium
		return list
	}
	orders := [6][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	o := orders[major%6]
	list := make([]uaBrand, 3)
	list[o[0]], list[o[1]], list[o[2]] = grease, chromium, uaBrand{Brand: brand, Version: v}
	return list
}

// predictLinuxHints is every client hint Chromium or Google Chrome
// (brand) on Linux reports for its version (product, Browser.getVersion's
// "Chrome/156.0.8078.114"), without asking it; nil when the version does
// not read.
func predictLinuxHints(brand, product string) *uaMetadata {
	major, _, _ := strings.Cut(strings.TrimPrefix(product, "Chrome/"), ".")
	n, err := strconv.Atoi(major)
	if err != nil || n <= 0 {
		return nil
	}
	md := &uaMetadata{Brands: greasedBrands(n, brand), Platform: "Linux"}
	if !completeLinuxHints(md, product) {
		return nil
	}
	return md
}

// sameLowEntropy: a and b report the same brands (in order), platform and
// mobile flag.
func sameLowEntropy(a, b *uaMetadata) bool {
	return a != nil && b != nil && slices.Equal(a.Brands, b.Brands) && a.Platform == b.Platform && a.Mobile == b.Mobile
}

// greaseBrand is the made-up brand Chrome puts among its brands ("Not:A-Brand",
// "Not_A Brand", "Not(A:Brand", ...).
var greaseBrand = regexp.MustCompile(`^Not.A.Brand$`)

// completeLinuxHints fills in what the --user-agent switch empties, for
// Chromium or Google Chrome on Linux, from what the switch leaves (brands,
// platform, mobile) and the browser's own version (Browser.getVersion's
// product, "Chrome/156.0.8078.114"): each brand's full version (the made-up
// brand's is its major and ".0.0.0"), uaFullVersion, architecture and
// bitness of this machine, the desktop form factor; platformVersion and
// model stay empty, as Chrome reports them on Linux. It reports false for
// anything else (another platform or brand, a version it cannot read), and
// the caller then asks the browser without the switch. The end-to-end test
// holds every value against plain Chromium's.
func completeLinuxHints(md *uaMetadata, product string) bool {
	if md == nil || runtime.GOOS != "linux" || md.Platform != "Linux" || md.Mobile || len(md.Brands) == 0 {
		return false
	}
	full, ok := strings.CutPrefix(product, "Chrome/")
	if !ok {
		return false
	}
	parts := strings.Split(full, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err != nil {
			return false
		}
	}
	var arch, bits string
	switch runtime.GOARCH {
	case "amd64":
		arch, bits = "x86", "64"
	case "386":
		arch, bits = "x86", "32"
	case "arm64":
		arch, bits = "arm", "64"
	case "arm":
		arch, bits = "arm", "32"
	default:
		return false
	}
	list := make([]uaBrand, 0, len(md.Brands))
	for _, b := range md.Brands {
		switch {
		case b.Brand == "Chromium" || b.Brand == "Google Chrome":
			if b.Version != parts[0] {
				return false
			}
			list = append(list, uaBrand{Brand: b.Brand, Version: full})
		case greaseBrand.MatchString(b.Brand):
			if _, err := strconv.Atoi(b.Version); err != nil {
				return false
			}
			list = append(list, uaBrand{Brand: b.Brand, Version: b.Version + ".0.0.0"})
		default:
			return false
		}
	}
	md.FullVersionList = list
	md.FullVersion = full
	md.Architecture, md.Bitness = arch, bits
	md.PlatformVersion, md.Model, md.Wow64 = "", "", false
	md.FormFactors = []string{"Desktop"}
	return true
}

// uaOverrides hands the browser's own client hints back to each target,
// with the UA string the --user-agent switch set. The override can be
// replaced (checkHints corrects a prediction); targets held after that get
// the new one.
type uaOverrides struct {
	p atomic.Pointer[uaOverride]
}

func newUAOverrides(userAgent string, md *uaMetadata) *uaOverrides {
	if userAgent == "" || md == nil {
		return nil
	}
	o := &uaOverrides{}
	o.p.Store(&uaOverride{UserAgent: userAgent, UserAgentMetadata: md})
	return o
}

func (o *uaOverrides) prepare(q *cdpguard.Sender, t *target.Info) {
	overrideUA(q, t, *o.p.Load())
}

// hintsCheckQuiet is how long the driver must have made no call before
// checkHints asks the browser: its page costs a renderer's start (about
// 300 ms of CPU, several times that on a slow machine), which should not
// land on a call that is timing the page.
const hintsCheckQuiet = 2 * time.Second

// checkHints asks the browser of a predicted launch, from a page of
// lyrad's in a context the guard leaves alone (Guard.Own), what brands,
// platform and mobile flag it sends itself under the switch, and compares
// them with the prediction every target was given. The same: remembered
// in browser-ua.json for the next launches. Not the same (Chrome changed
// how it makes its brands): the browser's own are remembered and given to
// every target, running ones included, with a warning. Not readable: the
// next launch asks without the switch. The result is reported (ua_checked,
// for the audit). It waits for a quiet moment (no call for
// hintsCheckQuiet); a browser closed before one came is not checked, and
// the next launch predicts again.
func (b *Browser) checkHints(o *Options, stamp string) {
	tick := time.NewTicker(hintsCheckQuiet / 8)
	defer tick.Stop()
	opened := time.Now()
	for !(time.Since(opened) >= hintsCheckQuiet && o.Quiet(hintsCheckQuiet)) {
		select {
		case <-tick.C:
		case <-b.Conn.Done():
			return
		}
	}
	g := b.Guard()
	if g == nil || b.ua == nil || b.predicted == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	md, err := learnLowEntropyHints(ctx, b.Conn, g.Own)
	if b.closing.Load() || b.Conn.Err() != nil {
		return
	}
	f := *b.predicted
	f.Executable, f.Stamp = b.Found.Path, stamp
	result := "confirmed"
	switch {
	case err != nil:
		// Nothing is remembered: the next launch predicts and checks again.
		o.Logger.Warn("cannot check the browser's user agent client hints", zap.Error(err))
		o.Report("ua_checked", map[string]any{"result": "failed", "error": err.Error()})
		return
	case sameLowEntropy(md, f.ClientHints):
	case completeLinuxHints(md, f.Product):
		result = "corrected"
		o.Logger.Warn("the predicted user agent client hints were not the browser's; every target now gets its own",
			zap.Any("predicted", f.ClientHints.Brands), zap.Any("browser", md.Brands))
		f.ClientHints = md
		p := &uaOverride{UserAgent: f.UserAgent, UserAgentMetadata: md}
		b.ua.p.Store(p)
		g.PrepareAll(func(q *cdpguard.Sender, t *target.Info) { overrideUA(q, t, *p) })
	default:
		result = "unreadable"
		o.Logger.Warn("the browser's user agent client hints do not read; the next launch asks it without the switch", zap.Any("browser", md))
		f.ClientHints, f.AskWithoutSwitch = nil, true
	}
	if err := o.Data.WriteUA(f); err != nil {
		o.Logger.Warn("cannot remember the browser's user agent", zap.Error(err))
	}
	o.Report("ua_checked", map[string]any{"result": result})
}

// overrideUA sends the override to one target. Pages, out-of-process
// iframes, service and shared workers each need it (an override is per
// target); dedicated workers and same-process iframes take their page's.
// Workers have no Emulation domain; Network's override is the same one.
func overrideUA(q *cdpguard.Sender, t *target.Info, p uaOverride) {
	switch t.Type {
	case "page", "iframe":
		q.Send("Emulation.setUserAgentOverride", p)
	case "service_worker", "shared_worker":
		q.Send("Network.setUserAgentOverride", p)
	}
}
