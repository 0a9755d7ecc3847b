package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func clearEnv(t *testing.T) {
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "LYRA_BROWSER_") || strings.HasPrefix(k, "VEGA_BROWSER_") || k == "VEGA_DATA_DIR" || k == "HERMES_HOME" {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
}

func TestSettingsPrecedence(t *testing.T) {
	clearEnv(t)
	home := t.TempDir()
	t.Setenv("HOME", home)

	o := &options{}
	if err := o.resolve(); err != nil {
		t.Fatal(err)
	}
	if o.dataDir != filepath.Join(home, ".lyra-browser") || o.headless != nil || o.ownerIdle != 900*time.Second {
		t.Errorf("defaults: %+v", o)
	}

	// An existing ~/.vega-browser is honoured when ~/.lyra-browser does not exist.
	os.Mkdir(filepath.Join(home, ".vega-browser"), 0o700)
	o = &options{}
	o.resolve()
	if o.dataDir != filepath.Join(home, ".vega-browser") {
		t.Errorf("vega data dir not honoured: %s", o.dataDir)
	}

	t.Setenv("VEGA_BROWSER_OWNER_IDLE_TIMEOUT", "30")
	t.Setenv("VEGA_BROWSER_HEADLESS", "true")
	o = &options{}
	o.resolve()
	if o.ownerIdle != 30*time.Second || o.headless == nil || !*o.headless {
		t.Errorf("VEGA_BROWSER_* not honoured: %+v", o)
	}
	t.Setenv("LYRA_BROWSER_OWNER_IDLE_TIMEOUT", "60")
	t.Setenv("LYRA_BROWSER_HEADLESS", "false")
	o = &options{}
	o.resolve()
	if o.ownerIdle != 60*time.Second || *o.headless {
		t.Errorf("LYRA_BROWSER_* must win over VEGA_BROWSER_*: %+v", o)
	}
	o = &options{flagHead: true, dataDir: "x"}
	o.resolve()
	if !*o.headless || !filepath.IsAbs(o.dataDir) {
		t.Errorf("flags must win: %+v", o)
	}
}

func TestSettingsBadValues(t *testing.T) {
	clearEnv(t)
	t.Setenv("HOME", t.TempDir())
	for k, v := range map[string]string{"LYRA_BROWSER_HEADLESS": "maybe", "LYRA_BROWSER_OWNER_IDLE_TIMEOUT": "-1", "LYRA_BROWSER_NAVIGATION_TIMEOUT": "soon",
		"LYRA_BROWSER_RECONNECT_GRACE": "-1", "LYRA_BROWSER_HTTP_SESSION_TIMEOUT": "later"} {
		t.Run(k, func(t *testing.T) {
			t.Setenv(k, v)
			if err := (&options{}).resolve(); err == nil {
				t.Errorf("%s=%s accepted", k, v)
			}
		})
	}
	if err := (&options{flagHead: true, flagHeadful: true}).resolve(); err == nil {
		t.Error("--headless with --no-headless accepted")
	}
}

// TestSessionEndSettings: the reconnect grace and the HTTP session timeout
// default to 60 s and 10 s, and 0 turns either off.
func TestSessionEndSettings(t *testing.T) {
	clearEnv(t)
	t.Setenv("HOME", t.TempDir())
	o := &options{}
	if err := o.resolve(); err != nil || o.reconnectGrace != 60*time.Second || o.httpSessionTimeout != 10*time.Second {
		t.Fatalf("defaults: grace %v, http %v, %v", o.reconnectGrace, o.httpSessionTimeout, err)
	}
	t.Setenv("LYRA_BROWSER_RECONNECT_GRACE", "0")
	t.Setenv("LYRA_BROWSER_HTTP_SESSION_TIMEOUT", "2.5")
	o = &options{}
	if err := o.resolve(); err != nil || o.reconnectGrace != 0 || o.httpSessionTimeout != 2500*time.Millisecond {
		t.Fatalf("set: grace %v, http %v, %v", o.reconnectGrace, o.httpSessionTimeout, err)
	}
}

func TestBrowserChoice(t *testing.T) {
	if c, e := browserChoice("msedge"); c != "msedge" || e != "" {
		t.Errorf("channel: %q %q", c, e)
	}
	if c, e := browserChoice("/opt/x/chrome"); c != "" || e != "/opt/x/chrome" {
		t.Errorf("path: %q %q", c, e)
	}
}

func TestVersionAndUsage(t *testing.T) {
	var out, errb stringsBuilder
	if code := run([]string{"version"}, nil, &out, &errb); code != 0 || out.String() == "" {
		t.Errorf("version: %d %q", code, out.String())
	}
	var help stringsBuilder
	if code := run([]string{"help"}, nil, &help, &errb); code != 0 || !strings.Contains(help.String(), "LYRA_BROWSER_CONSENT_CHANNEL") {
		t.Errorf("help does not list the settings: %d %q", code, help.String())
	}
	if code := run([]string{"bogus"}, nil, &out, &errb); code != 2 {
		t.Errorf("unknown command exit %d", code)
	}
	if code := run([]string{"serve", "--port", "99999"}, nil, &out, &errb); code != 2 {
		t.Errorf("bad port exit %d", code)
	}
}

type stringsBuilder struct{ b []byte }

func (s *stringsBuilder) Write(p []byte) (int, error) { s.b = append(s.b, p...); return len(p), nil }
func (s *stringsBuilder) String() string              { return string(s.b) }

// TestClientHosts: --client (LYRA_BROWSER_CLIENT, else detected from
// VEGA_DATA_DIR or HERMES_HOME) picks each host's data directory and, for
// hermes, headless; an explicit data dir or window setting wins.
func TestClientHosts(t *testing.T) {
	clearEnv(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	resolve := func(o *options) *options {
		t.Helper()
		if err := o.resolve(); err != nil {
			t.Fatal(err)
		}
		return o
	}
	headless := func(o *options) string {
		if o.headless == nil {
			return "auto"
		}
		return strconv.FormatBool(*o.headless)
	}
	for _, c := range []struct {
		name      string
		env       map[string]string
		o         *options
		client    string
		dataDir   string
		headlessV string
	}{
		{"nothing", nil, &options{}, "generic", filepath.Join(home, ".lyra-browser"), "auto"},
		{"--client hermes", nil, &options{client: "hermes"}, "hermes", filepath.Join(home, ".hermes", "browser"), "true"},
		{"--client hermes, HERMES_HOME", map[string]string{"HERMES_HOME": "/srv/hermes"}, &options{client: "hermes"}, "hermes", "/srv/hermes/browser", "true"},
		{"HERMES_HOME detected", map[string]string{"HERMES_HOME": "~/h"}, &options{}, "hermes", filepath.Join(home, "h", "browser"), "true"},
		{"hermes --no-headless", nil, &options{client: "hermes", flagHeadful: true}, "hermes", filepath.Join(home, ".hermes", "browser"), "false"},
		{"hermes LYRA_BROWSER_HEADLESS=false", map[string]string{"LYRA_BROWSER_HEADLESS": "false"}, &options{client: "hermes"}, "hermes", filepath.Join(home, ".hermes", "browser"), "false"},
		{"--client vega, VEGA_DATA_DIR", map[string]string{"VEGA_DATA_DIR": "/v"}, &options{client: "vega"}, "vega", "/v/browser", "auto"},
		{"VEGA_DATA_DIR detected", map[string]string{"VEGA_DATA_DIR": "/v", "HERMES_HOME": "/h"}, &options{}, "vega", "/v/browser", "auto"},
		{"--client vega, no VEGA_DATA_DIR", nil, &options{client: "vega"}, "vega", filepath.Join(home, ".lyra-browser"), "auto"},
		{"LYRA_BROWSER_CLIENT beats detection", map[string]string{"LYRA_BROWSER_CLIENT": "hermes", "VEGA_DATA_DIR": "/v"}, &options{}, "hermes", filepath.Join(home, ".hermes", "browser"), "true"},
		{"--client generic beats detection", map[string]string{"VEGA_DATA_DIR": "/v"}, &options{client: "generic"}, "generic", filepath.Join(home, ".lyra-browser"), "auto"},
		{"LYRA_BROWSER_DATA_DIR wins", map[string]string{"LYRA_BROWSER_DATA_DIR": "/d"}, &options{client: "hermes"}, "hermes", "/d", "true"},
		{"--data-dir wins", map[string]string{"VEGA_DATA_DIR": "/v"}, &options{client: "vega", dataDir: "/dd"}, "vega", "/dd", "auto"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			o := resolve(c.o)
			if o.client != c.client || o.dataDir != c.dataDir || headless(o) != c.headlessV {
				t.Errorf("client %s, data dir %s, headless %s; want %s, %s, %s", o.client, o.dataDir, headless(o), c.client, c.dataDir, c.headlessV)
			}
		})
	}
	if err := (&options{client: "hermez"}).resolve(); err == nil || !strings.Contains(err.Error(), "vega, hermes or generic") {
		t.Errorf("--client hermez: %v", err)
	}
	// The unit and the MCP client's block keep the --client given.
	withGOOS(t, "linux")
	_, out, _ := runCmd(t, "service", "install", "--dry-run", "--client", "hermes")
	if !strings.Contains(execStart(out), " serve --data-dir "+filepath.Join(home, ".hermes", "browser")+" --client hermes") {
		t.Errorf("unit for --client hermes: %s", execStart(out))
	}
	_, out, _ = runCmd(t, "mcp-config", "--client", "hermes")
	if !strings.Contains(out, `"--client",`) || !strings.Contains(out, `"hermes"`) {
		t.Errorf("mcp-config --client hermes:\n%s", out)
	}
}

// TestAuditTabBudgetSetting: 500 MiB a day by default; 0 turns the per-tab
// limit off (the session's "none", a negative budget); a bad value fails.
func TestAuditTabBudgetSetting(t *testing.T) {
	clearEnv(t)
	t.Setenv("HOME", t.TempDir())
	o := &options{}
	if err := o.resolve(); err != nil || o.auditTabBytesPerDay != 500<<20 || tabBudget(o.auditTabBytesPerDay) != 500<<20 {
		t.Fatalf("default: %d, %v", o.auditTabBytesPerDay, err)
	}
	t.Setenv("LYRA_BROWSER_AUDIT_TAB_BYTES_PER_DAY", "0")
	o = &options{}
	if err := o.resolve(); err != nil || o.auditTabBytesPerDay != 0 || tabBudget(o.auditTabBytesPerDay) >= 0 {
		t.Fatalf("0: %d, %v", o.auditTabBytesPerDay, err)
	}
	t.Setenv("LYRA_BROWSER_AUDIT_TAB_BYTES_PER_DAY", "1000000")
	o = &options{}
	if err := o.resolve(); err != nil || tabBudget(o.auditTabBytesPerDay) != 1000000 {
		t.Fatalf("set: %d, %v", o.auditTabBytesPerDay, err)
	}
	t.Setenv("LYRA_BROWSER_AUDIT_TAB_BYTES_PER_DAY", "-5")
	if err := (&options{}).resolve(); err == nil {
		t.Error("a negative budget accepted")
	}
}
