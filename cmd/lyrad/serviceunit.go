package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
)

// serviceName is the unit's name on both platforms: lyrad.service for
// systemd, the launchd agent's label.
const serviceName = "lyrad"

// systemdUnit is a systemd user unit running `lyrad serve`. Its stderr,
// where serve logs, goes to the journal: journalctl --user -u lyrad.
func systemdUnit(exe string, serveArgs []string) string {
	argv := append([]string{exe, "serve"}, serveArgs...)
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = systemdQuote(a, i > 0)
	}
	return fmt.Sprintf(`[Unit]
Description=lyrad: a shared, guarded browser for AI agents, over MCP

[Service]
Type=simple
ExecStart=%s
# serve stops in order on SIGTERM: browser closed, audit flushed, lock released.
KillSignal=SIGTERM
TimeoutStopSec=20
Restart=on-failure
RestartSec=5
StandardOutput=journal
StandardError=journal

[Install]
WantedBy=default.target
`, strings.Join(quoted, " "))
}

// systemdQuote quotes one ExecStart word: double quotes when it holds
// space, quote or backslash; '%' doubled, since systemd expands specifiers;
// in arguments, not in the command's path (systemd-analyze verify says so),
// '$' doubled, since it expands variables there.
func systemdQuote(s string, arg bool) string {
	s = strings.ReplaceAll(s, "%", "%%")
	if arg {
		s = strings.ReplaceAll(s, "$", "$$")
	}
	if !strings.ContainsAny(s, " \t\"'\\;") {
		return s
	}
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"`, `\"`)
	return `"` + s + `"`
}

// launchdPlist is a launchd agent running `lyrad serve` at login, its output
// in logFile (~/Library/Logs/lyrad.log, where Console.app looks).
func launchdPlist(exe string, serveArgs []string, logFile string) string {
	var args bytes.Buffer
	for _, a := range append([]string{exe, "serve"}, serveArgs...) {
		args.WriteString("\t\t<string>")
		_ = xml.EscapeText(&args, []byte(a))
		args.WriteString("</string>\n")
	}
	var lf bytes.Buffer
	_ = xml.EscapeText(&lf, []byte(logFile))
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>%s</string>
	<key>ProgramArguments</key>
	<array>
%s	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ProcessType</key>
	<string>Interactive</string>
	<key>StandardOutPath</key>
	<string>%s</string>
	<key>StandardErrorPath</key>
	<string>%s</string>
</dict>
</plist>
`, serviceName, args.String(), lf.String(), lf.String())
}
