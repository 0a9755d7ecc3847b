package main

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"strings"

	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/policy"
	"github.com/lyrad/lyrad/tools"
	"github.com/lyrad/lyrad/tools/playwright"
	"github.com/lyrad/lyrad/transport"
)

// Surfaces: lyrad's own tools, or Playwright MCP's over the same core.
const (
	surfaceLyra       = "lyra"
	surfacePlaywright = "playwright"
)

// surfaceOptions are --surface and the Playwright MCP flags that have a
// meaning here. lyrad's own settings win over them.
type surfaceOptions struct {
	surface        string
	caps           string
	executablePath string
	browser        string
	userDataDir    string
	isolated       bool
	allowedOrigins string
	outputDir      string
	evaluate       bool     // --playwright-evaluate, else LYRA_BROWSER_PLAYWRIGHT_EVALUATE
	refused        []string // Playwright MCP flags given that lyrad does not take
}

// pwRefused are Playwright MCP's flags with no meaning in lyrad, and why.
var pwRefused = map[string]string{
	"cdp-endpoint":        "lyrad launches and guards its own browser; it attaches to none",
	"extension":           "lyrad launches and guards its own browser; it attaches to none",
	"endpoint":            "lyrad launches and guards its own browser; it attaches to none",
	"device":              "lyrad emulates no device: the page sees the user's browser",
	"mobile":              "lyrad emulates no device: the page sees the user's browser",
	"viewport-size":       "lyrad does not resize the user's window",
	"user-agent":          "lyrad sends the browser's own user agent (headless mode drops only the word Headless)",
	"init-script":         "lyrad runs no script in the page's world",
	"init-page":           "lyrad runs no Playwright code",
	"blocked-origins":     "the guard judges every request; trust is widened only by --allowed-origins / LYRA_BROWSER_TRUSTED_ORIGINS",
	"ignore-https-errors": "lyrad does not turn certificate checks off",
	"no-sandbox":          "lyrad starts the browser with its own flags",
	"sandbox":             "lyrad starts the browser with its own flags",
	"storage-state":       "the profile in the data directory is the state",
	"secrets":             "lyrad types no secrets on the agent's behalf",
	"codegen":             "lyrad generates no Playwright code",
	"save-session":        "the audit trail is the record (lyrad audit)",
	"grant-permissions":   "permissions are the user's to grant in their browser",
	"proxy-server":        "use LYRA_BROWSER_PROXY",
	"host":                "lyrad serves HTTP on 127.0.0.1 only (lyrad serve --http)",
	"allowed-hosts":       "lyrad serves HTTP on 127.0.0.1 only, with Host and Origin checks",
	"config":              "use lyrad's LYRA_BROWSER_* settings",
	"timeout-action":      "lyrad's actions are bounded by its own settings",
	"timeout-navigation":  "use LYRA_BROWSER_NAVIGATION_TIMEOUT",
	"snapshot-mode":       "an acting call answers what it changed (incremental), browser_snapshot the whole page",
	"image-responses":     "screenshots always carry the image",
	"console-level":       "lyrad never enables the page's console",
}

// pwBoolFlags are the refused flags that take no value.
var pwBoolFlags = map[string]bool{"extension": true, "mobile": true, "ignore-https-errors": true, "no-sandbox": true, "sandbox": true, "save-session": true}

func registerSurfaceFlags(fs *flag.FlagSet, s *surfaceOptions) {
	fs.StringVar(&s.surface, "surface", surfaceLyra, "the tool surface: lyra (lyrad's own) or playwright (Playwright MCP's tools)")
	fs.StringVar(&s.caps, "caps", "", "with --surface playwright: lyra adds lyrad's own tools (takeover, forms, drafts, downloads); Playwright's vision, pdf, devtools are not offered")
	fs.StringVar(&s.executablePath, "executable-path", "", "Playwright MCP's: the browser executable (--chrome wins)")
	fs.StringVar(&s.browser, "browser", "", "Playwright MCP's: chrome, msedge or chromium (--chrome wins)")
	fs.StringVar(&s.userDataDir, "user-data-dir", "", "Playwright MCP's: taken as --data-dir (lyrad keeps the profile in it; --data-dir wins)")
	fs.BoolVar(&s.isolated, "isolated", false, "Playwright MCP's: a temporary data directory (and profile), removed at exit")
	fs.StringVar(&s.allowedOrigins, "allowed-origins", "", "Playwright MCP's: semicolon-separated origins, read as trusted origins (LYRA_BROWSER_TRUSTED_ORIGINS wins)")
	fs.StringVar(&s.outputDir, "output-dir", "", "Playwright MCP's: where named snapshots and screenshots are written")
	fs.BoolVar(&s.evaluate, "playwright-evaluate", false, "with --surface playwright: browser_evaluate runs the agent's function, in lyrad's isolated world (LYRA_BROWSER_PLAYWRIGHT_EVALUATE=true)")
	refused := pwRefused
	if fs.Lookup("port") == nil {
		// lyrad serve's --port is its HTTP port; elsewhere it is Playwright
		// MCP's SSE port.
		refused = maps.Clone(pwRefused)
		refused["port"] = "lyrad serves HTTP with lyrad serve --http --port N"
	}
	for name, why := range refused {
		note := func() { s.refused = append(s.refused, fmt.Sprintf("--%s: %s", name, why)) }
		if pwBoolFlags[name] {
			fs.BoolFunc(name, "Playwright MCP's; refused: "+why, func(string) error { note(); return nil })
		} else {
			fs.Func(name, "Playwright MCP's; refused: "+why, func(string) error { note(); return nil })
		}
	}
}

// apply maps the Playwright MCP flags onto lyrad's options, before they
// are resolved: lyrad's own flags and settings win.
func (s *surfaceOptions) apply(o *options) error {
	if len(s.refused) > 0 {
		return errors.New("Playwright MCP flags lyrad does not take:\n  " + strings.Join(s.refused, "\n  "))
	}
	switch s.surface {
	case surfaceLyra, surfacePlaywright:
	default:
		return fmt.Errorf("--surface %q: use lyra or playwright", s.surface)
	}
	if !s.evaluate {
		if v, ok := env("PLAYWRIGHT_EVALUATE"); ok {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "1", "true", "yes", "on":
				s.evaluate = true
			case "", "0", "false", "no", "off":
			default:
				return fmt.Errorf("LYRA_BROWSER_PLAYWRIGHT_EVALUATE=%q: use true or false", v)
			}
		}
	}
	for _, c := range s.capsList() {
		if c != "lyra" {
			return fmt.Errorf("--caps %s: lyrad offers lyra (its own tools); Playwright's vision, pdf and devtools tools are not part of this surface", c)
		}
	}
	if o.chrome == "" {
		if v, _ := env("CHANNEL"); strings.TrimSpace(v) == "" {
			switch {
			case s.executablePath != "":
				o.chrome = s.executablePath
			case s.browser == "chrome" || s.browser == "msedge" || s.browser == "chromium" || strings.HasPrefix(s.browser, "chrome-") || strings.HasPrefix(s.browser, "msedge-"):
				o.chrome = s.browser
			case s.browser != "":
				return fmt.Errorf("--browser %s: lyrad drives Chrome, Edge or Chromium", s.browser)
			}
		}
	}
	if o.dataDir == "" {
		if v, _ := env("DATA_DIR"); strings.TrimSpace(v) == "" {
			switch {
			case s.isolated:
				d, err := os.MkdirTemp("", "lyrad-isolated-")
				if err != nil {
					return err
				}
				o.dataDir = d
				atExit = append(atExit, func() { os.RemoveAll(d) })
			case s.userDataDir != "":
				o.dataDir = s.userDataDir
			}
		}
	}
	return nil
}

// applyTrust reads --allowed-origins as trusted origins when
// LYRA_BROWSER_TRUSTED_ORIGINS is not set.
func (s *surfaceOptions) applyTrust(o *options) {
	if s.allowedOrigins == "" {
		return
	}
	if v, ok := env("TRUSTED_ORIGINS"); ok && strings.TrimSpace(v) != "" {
		o.warnings = append(o.warnings, "--allowed-origins ignored: LYRA_BROWSER_TRUSTED_ORIGINS is set")
		return
	}
	entries, warnings := policy.ParseTrusted(strings.ReplaceAll(s.allowedOrigins, ";", ","))
	o.trust.Navigate = append(o.trust.Navigate, entries...)
	for _, w := range warnings {
		o.warnings = append(o.warnings, "--allowed-origins: "+w)
	}
}

func (s *surfaceOptions) capsList() []string {
	var out []string
	for _, c := range strings.Split(s.caps, ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// atExit runs when the command returns (an --isolated data directory is
// removed).
var atExit []func()

// surfaceSocket is the socket of the surface asked for.
func (s *surfaceOptions) socket(d datadir.Dir) string {
	if s.surface == surfacePlaywright {
		return d.PlaywrightSocket()
	}
	return d.Socket()
}

// servers builds the server of each surface over one session core: the
// one asked for first.
func (s *surfaceOptions) servers(deps tools.Deps) (asked, lyra, pw *transport.Server) {
	lyra = transport.NewServer(deps, versionString())
	pw = transport.NewPlaywrightServer(deps, versionString(), playwright.Options{Caps: s.capsList(), OutputDir: s.outputDir, Evaluate: s.evaluate})
	if s.surface == surfacePlaywright {
		return pw, lyra, pw
	}
	return lyra, lyra, pw
}
