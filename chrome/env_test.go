package chrome

import (
	"slices"
	"testing"
)

func TestBrowserEnv(t *testing.T) {
	keep := []string{
		"HOME=/home/me", "PATH=/usr/bin", "DISPLAY=:0", "WAYLAND_DISPLAY=wayland-0", "XAUTHORITY=/run/x",
		"XDG_RUNTIME_DIR=/run/user/1000", "XDG_CURRENT_DESKTOP=KDE", "LANG=de_DE.UTF-8", "LC_ALL=C", "TZ=UTC",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/bus", "https_proxy=http://proxy:3128", "NO_PROXY=localhost",
		"FONTCONFIG_PATH=/etc/fonts", "TMPDIR=/tmp", "KDE_SESSION_VERSION=5", "Path=C:\\Windows", "SystemRoot=C:\\Windows",
	}
	drop := []string{
		"LYRA_BROWSER_DATA_DIR=/d", "VEGA_BROWSER_HEADLESS=1", "VEGA_TOKEN=x", "GITHUB_TOKEN=ghp_x",
		"OPENAI_API_KEY=sk-x", "AWS_SECRET_ACCESS_KEY=x", "MCP_SERVER_NAME=lyrad", "ANTHROPIC_API_KEY=x",
		"GOOGLE_API_KEY=x", "SSH_AUTH_SOCK=/run/ssh", "CHROMIUM_FLAGS=--remote-allow-origins=*", "LD_PRELOAD=/x.so",
		"XDG_SECRET=x", "GNOME_KEYRING_CONTROL=/run/k", "GTK_PASSWORD=x", "DB_PASSWORD=x", "NOEQUALS", "=x",
	}
	got := browserEnv(append(slices.Clone(keep), drop...))
	for _, kv := range keep {
		if !slices.Contains(got, kv) {
			t.Errorf("%s dropped; the browser needs it", kv)
		}
	}
	for _, kv := range drop {
		if slices.Contains(got, kv) {
			t.Errorf("%s passed to the browser", kv)
		}
	}
}
