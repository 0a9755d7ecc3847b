package chrome

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The browser gets the environment a browser needs and nothing else of
// lyrad's: not lyrad's settings, not the MCP client's variables, not the
// tokens and keys an agent's shell tends to carry (a page cannot read the
// environment, but a crash report, a helper or an extension might), and
// not what would change how the browser starts (CHROMIUM_FLAGS is read by
// Debian's wrapper script and could undo lyrad's switches; LD_PRELOAD).

// envKeep are kept by exact name (compared upper-cased, as Windows does).
var envKeep = map[string]bool{
	// Unix: who and where.
	"HOME": true, "PATH": true, "USER": true, "LOGNAME": true, "SHELL": true,
	"TMPDIR": true, "TMP": true, "TEMP": true, "TZ": true, "LANG": true, "LANGUAGE": true,
	// Display, session bus (the keyring behind saved passwords and cookie
	// encryption), input methods, sound.
	"DISPLAY": true, "WAYLAND_DISPLAY": true, "WAYLAND_SOCKET": true, "XAUTHORITY": true,
	"DBUS_SESSION_BUS_ADDRESS": true, "DESKTOP_SESSION": true, "XMODIFIERS": true,
	"GTK_IM_MODULE": true, "QT_IM_MODULE": true, "PULSE_SERVER": true, "PULSE_RUNTIME_PATH": true,
	"CHROME_DEVEL_SANDBOX": true,
	// Proxies (either case; --proxy-server wins when lyrad is given one).
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "ALL_PROXY": true, "FTP_PROXY": true,
	// Windows.
	"SYSTEMROOT": true, "SYSTEMDRIVE": true, "WINDIR": true, "COMSPEC": true, "PATHEXT": true,
	"USERPROFILE": true, "USERNAME": true, "USERDOMAIN": true, "HOMEDRIVE": true, "HOMEPATH": true,
	"APPDATA": true, "LOCALAPPDATA": true, "PROGRAMDATA": true, "PUBLIC": true, "ALLUSERSPROFILE": true,
	"PROGRAMFILES": true, "PROGRAMFILES(X86)": true, "PROGRAMW6432": true,
	"COMMONPROGRAMFILES": true, "COMMONPROGRAMFILES(X86)": true, "COMMONPROGRAMW6432": true,
	"COMPUTERNAME": true, "OS": true, "NUMBER_OF_PROCESSORS": true,
	"PROCESSOR_ARCHITECTURE": true, "PROCESSOR_IDENTIFIER": true,
}

// envKeepPrefix are families kept unless a name looks like a secret. KDE_,
// GNOME_ and XDG_CURRENT_DESKTOP tell the browser which keyring holds the
// profile's cookie key: dropping them would make its cookies unreadable.
var envKeepPrefix = []string{"XDG_", "LC_", "FONTCONFIG", "GTK_", "GDK_", "QT_", "KDE_", "GNOME_", "XCURSOR_", "__CF_"}

// envSecretish marks a name as a secret whatever family it is in.
var envSecretish = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "KEY", "COOKIE", "PRIVATE", "API"}

// browserEnv filters environ ("NAME=value" entries) down to what the
// browser may see.
func browserEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if keepEnv(strings.ToUpper(name)) {
			out = append(out, kv)
		}
	}
	return out
}

func keepEnv(name string) bool {
	if envKeep[name] {
		return true
	}
	for _, s := range envSecretish {
		if strings.Contains(name, s) {
			return false
		}
	}
	for _, p := range envKeepPrefix {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// withTempDir points the browser's temporary-file variables at dir,
// replacing the ones inherited.
func withTempDir(env []string, dir string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(name) {
		case "TMPDIR", "TMP", "TEMP":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "TMPDIR="+dir, "TMP="+dir, "TEMP="+dir)
}

// withXDGDownload gives the browser its own XDG_CONFIG_HOME (under tmp)
// whose user-dirs.dirs names dir as the download folder.
func withXDGDownload(env []string, tmp, dir string) ([]string, error) {
	conf := filepath.Join(tmp, "xdg")
	if err := os.MkdirAll(conf, 0o700); err != nil {
		return nil, err
	}
	line := "XDG_DOWNLOAD_DIR=" + strconv.Quote(dir) + "\n"
	if err := os.WriteFile(filepath.Join(conf, "user-dirs.dirs"), []byte(line), 0o600); err != nil {
		return nil, err
	}
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			out = append(out, kv)
		}
	}
	return append(out, "XDG_CONFIG_HOME="+conf), nil
}
