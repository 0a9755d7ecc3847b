package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func clearEnv(t *testing.T) {
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "LYRA_BROWSER_") || strings.HasPrefix(k, "VEGA_BROWSER_") {
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
