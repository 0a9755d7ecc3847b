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
	"strconv"

	"go.uber.org/zap/zapcore"
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
		fmt.Fprintln(stderr, "lyrad service: give install, uninstall or status (lyrad service install [--dry-run] [serve's flags: --http --port N --headless ...])")
		return 2
	}
	sub := args[0]
	var dryRun bool
	// install takes serve's flags and writes them into the unit; status
	// takes them to compare the unit with what install would write.
	o, code := parse("service "+sub, args[1:], stderr, sub != "uninstall", func(fs *flag.FlagSet) {
		if sub == "install" {
			fs.BoolVar(&dryRun, "dry-run", false, "print the unit instead of writing it")
		}
	})
	if o == nil {
		return code
	}
	serveArgs, err := o.serveArgs()
	if err != nil {
		fmt.Fprintf(stderr, "lyrad service %s: %v\n", sub, err)
		return 2
	}
	exe, err := selfPath()
	if err != nil {
		fmt.Fprintln(stderr, "lyrad service:", err)
		return 1
	}
	p, err := newServicePlatform(exe, serveArgs)
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

// serveArgs are the arguments of the `lyrad serve` the unit runs: the data
// directory when it is not the default, and serve's flags as they were
// given (--client, --http, --port, --headless or --no-headless, --chrome, --log-level,
// --log-file), paths made absolute: the service manager starts it in
// another directory. The environment is not written: the unit runs with
// the service manager's.
func (o *options) serveArgs() ([]string, error) {
	args := o.hostArgs()
	if o.http {
		args = append(args, "--http")
		if o.set["port"] {
			args = append(args, "--port", strconv.Itoa(o.port))
		}
	}
	switch {
	case o.flagHead:
		args = append(args, "--headless")
	case o.flagHeadful:
		args = append(args, "--no-headless")
	}
	if o.set["chrome"] && o.chrome != "" {
		c := o.chrome
		if _, exe := browserChoice(c); exe != "" {
			abs, err := filepath.Abs(exe)
			if err != nil {
				return nil, fmt.Errorf("--chrome %s: %w", c, err)
			}
			c = abs
		}
		args = append(args, "--chrome", c)
	}
	if o.set["log-level"] && o.logLevel != "" {
		var l zapcore.Level
		if err := l.Set(o.logLevel); err != nil {
			return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", o.logLevel)
		}
		args = append(args, "--log-level", o.logLevel)
	}
	if o.set["log-file"] && o.logFile != "" {
		abs, err := filepath.Abs(o.logFile)
		if err != nil {
			return nil, fmt.Errorf("--log-file %s: %w", o.logFile, err)
		}
		args = append(args, "--log-file", abs)
	}
	return args, nil
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
