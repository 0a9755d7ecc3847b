package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestMCPConfigPlaywrightSurface(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"mcp-config", "--surface", "playwright", "--data-dir", t.TempDir()}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var cfg struct {
		MCPServers map[string]struct {
			Args []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(out.Bytes(), &cfg); err != nil {
		t.Fatal(err)
	}
	pw, ok := cfg.MCPServers["playwright"]
	if !ok || strings.Join(pw.Args[:3], " ") != "stdio --surface playwright" {
		t.Errorf("mcp-config --surface playwright: %s", out.String())
	}
}

func TestPlaywrightFlagsMapped(t *testing.T) {
	for _, k := range []string{"LYRA_BROWSER_CHANNEL", "VEGA_BROWSER_CHANNEL", "LYRA_BROWSER_DATA_DIR", "VEGA_BROWSER_DATA_DIR", "LYRA_BROWSER_TRUSTED_ORIGINS", "VEGA_BROWSER_TRUSTED_ORIGINS"} {
		t.Setenv(k, "")
	}
	o := &options{set: map[string]bool{}}
	s := &surfaceOptions{surface: surfacePlaywright, executablePath: "/opt/chrome", userDataDir: "/tmp/pw-profile", allowedOrigins: "https://a.test;https://b.test"}
	if err := s.apply(o); err != nil {
		t.Fatal(err)
	}
	if o.chrome != "/opt/chrome" || o.dataDir != "/tmp/pw-profile" {
		t.Errorf("chrome %q, data dir %q", o.chrome, o.dataDir)
	}
	s.applyTrust(o)
	if len(o.trust.Navigate) != 2 {
		t.Errorf("--allowed-origins: %v (warnings %v)", o.trust.Navigate, o.warnings)
	}
	// lyrad's own flags win.
	o = &options{set: map[string]bool{}, chrome: "chromium", dataDir: "/tmp/mine"}
	if err := s.apply(o); err != nil || o.chrome != "chromium" || o.dataDir != "/tmp/mine" {
		t.Errorf("lyrad's flags lost: %q %q %v", o.chrome, o.dataDir, err)
	}
	s = &surfaceOptions{surface: surfacePlaywright, refused: []string{"--device: lyrad emulates no device"}}
	if err := s.apply(&options{}); err == nil || !strings.Contains(err.Error(), "--device") {
		t.Errorf("refused flag: %v", err)
	}
}
