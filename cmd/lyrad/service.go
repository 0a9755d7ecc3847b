package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// servicePlatform is where a service lives on one system and how it is
// started: a systemd user unit on Linux, a launchd agent on macOS.
type servicePlatform struct {
	name     string // "systemd" or "launchd"
	path     string // the unit file
	contents string
	enable   []string // commands the user runs after install
	disable  []string // ... before uninstall removes the file
	status   []string
}

// goos is runtime.GOOS; a variable so tests can generate the other
// platform's files.
var goos = runtime.GOOS

func newServicePlatform(exe string, serveArgs []string) (*servicePlatform, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("no home directory to install into: %w", err)
	}
	switch goos {
	case "linux":
		conf := os.Getenv("XDG_CONFIG_HOME")
		if conf == "" || !filepath.IsAbs(conf) {
			conf = filepath.Join(home, ".config")
		}
		return &servicePlatform{
			name:     "systemd",
			path:     filepath.Join(conf, "systemd", "user", serviceName+".service"),
			contents: systemdUnit(exe, serveArgs),
			enable:   []string{"systemctl --user daemon-reload", "systemctl --user enable --now lyrad.service", "journalctl --user -u lyrad -f    # its logs"},
			disable:  []string{"systemctl --user disable --now lyrad.service"},
			status:   []string{"systemctl --user status lyrad.service", "journalctl --user -u lyrad"},
		}, nil
	case "darwin":
		p := filepath.Join(home, "Library", "LaunchAgents", serviceName+".plist")
		return &servicePlatform{
			name:     "launchd",
			path:     p,
			contents: launchdPlist(exe, serveArgs, filepath.Join(home, "Library", "Logs", "lyrad.log")),
			enable:   []string{"launchctl bootstrap gui/$(id -u) " + p, "tail -f ~/Library/Logs/lyrad.log    # its logs"},
			disable:  []string{"launchctl bootout gui/$(id -u)/" + serviceName},
			status:   []string{"launchctl print gui/$(id -u)/" + serviceName},
		}, nil
	}
	return nil, fmt.Errorf("no service manager supported on %s: run `lyrad serve` from your own", goos)
}

func cmdService(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "install" && args[0] != "uninstall" && args[0] != "status") {
		fmt.Fprintln(stderr, "lyrad service: give install, uninstall or status (lyrad service install [--dry-run])")
		return 2
	}
	sub := args[0]
	var dryRun bool
	o, ok := parse("service "+sub, args[1:], stderr, false, func(fs *flag.FlagSet) {
		if sub == "install" {
			fs.BoolVar(&dryRun, "dry-run", false, "print the unit instead of writing it")
		}
	})
	if !ok {
		return 2
	}
	exe, err := selfPath()
	if err != nil {
		fmt.Fprintln(stderr, "lyrad service:", err)
		return 1
	}
	p, err := newServicePlatform(exe, dataDirArgs(o.dataDir))
	if err != nil {
		fmt.Fprintln(stderr, "lyrad service:", err)
		return 1
	}
	switch sub {
	case "install":
		if dryRun {
			fmt.Fprint(stdout, p.contents)
			return 0
		}
		return serviceInstall(p, stdout, stderr)
	case "uninstall":
		return serviceUninstall(p, stdout, stderr)
	}
	return serviceStatus(p, o.data(), stdout)
}

func serviceInstall(p *servicePlatform, stdout, stderr io.Writer) int {
	if err := os.MkdirAll(filepath.Dir(p.path), 0o755); err != nil {
		fmt.Fprintln(stderr, "lyrad service install:", err)
		return 1
	}
	if err := os.WriteFile(p.path, []byte(p.contents), 0o644); err != nil {
		fmt.Fprintln(stderr, "lyrad service install:", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s (%s)\nto start it now and at every login, run:\n", p.path, p.name)
	for _, c := range p.enable {
		fmt.Fprintln(stdout, "  "+c)
	}
	return 0
}

func serviceUninstall(p *servicePlatform, stdout, stderr io.Writer) int {
	err := os.Remove(p.path)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stdout, "no %s: nothing to uninstall\n", p.path)
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "lyrad service uninstall:", err)
		return 1
	}
	// systemctl enable links the unit from default.target.wants; a link
	// left to a removed file would fail every login's start.
	if p.name == "systemd" {
		link := filepath.Join(filepath.Dir(p.path), "default.target.wants", serviceName+".service")
		if dst, err := os.Readlink(link); err == nil && dst == p.path {
			_ = os.Remove(link)
		}
	}
	fmt.Fprintf(stdout, "removed %s\nif it is running, stop it with:\n", p.path)
	for _, c := range p.disable {
		fmt.Fprintln(stdout, "  "+c)
	}
	return 0
}
