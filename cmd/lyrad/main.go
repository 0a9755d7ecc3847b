// Command lyrad gives AI agents a real, shared Chrome over MCP and keeps
// them inside the lines the user drew.
//
//	lyrad serve [--http [--port N]]   the daemon: MCP on a local socket (and HTTP)
//	lyrad stdio                        MCP on stdin/stdout (relays to a running daemon)
//	lyrad doctor [--json]              check how closed the debugging port is
//	lyrad audit [filters] [-f]         the audit trail, as a table or JSON lines
//	lyrad mcp-config [--http]          the settings block for an MCP client
//	lyrad service install|uninstall|status   serve as a systemd user unit or launchd agent
//	lyrad status [--json]              what the data directory says of its daemon
//	lyrad approve [--list|ID|--deny ID] answer a consent question the agent's client could not ask
//	lyrad version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/launch"
	"github.com/lyrad/lyrad/session"
	"github.com/lyrad/lyrad/tools"
	"github.com/lyrad/lyrad/transport"
)

// version is set with -ldflags "-X main.version=v1.2.3".
var version = ""

const usage = `lyrad: a shared, guarded browser for AI agents, over MCP.

Usage:
  lyrad serve [--http [--port N]] [flags]   run the daemon (MCP on <data_dir>/lyrad.sock, and HTTP with --http)
  lyrad stdio [--surface playwright] [flags] MCP on stdin/stdout; relays to a running daemon, else serves in-process
  lyrad doctor [--json] [flags]              check the browser and the front doors from the outside
  lyrad takeover [--reason TEXT] [flags]     take the browser over from the agent (the window must be visible)
  lyrad resume [flags]                       hand it back
  lyrad approve [--list | ID | --deny ID] [flags]
                                             answer a consent question the agent's client could not ask
  lyrad audit [--json] [-f] [--session ID] [--kind K] [--status S] [--since 1m|RFC3339]
                                             the audit trail as a table (or JSON lines); -f follows
  lyrad mcp-config [--http] [flags]          the JSON block for an MCP client's settings
  lyrad service install [--dry-run] [--http [--port N]] [flags]|uninstall|status
                                             lyrad serve as a systemd user unit / launchd agent, with these flags
  lyrad status [--json] [flags]              is a daemon serving the data dir: pid, socket, HTTP, browser
  lyrad version

Flags (also LYRA_BROWSER_* environment variables; see README):
  --client vega|hermes|generic   --data-dir DIR   --headless | --no-headless   --chrome PATH|CHANNEL
  --log-file FILE   --log-level LEVEL
  serve, stdio: --surface lyra|playwright (Playwright MCP's tools)   --caps lyra
`

func main() {
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	for _, f := range atExit {
		f()
	}
	os.Exit(code)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case launch.WatchdogVerb: // started by lyrad itself beside each browser; not in the usage
		return launch.RunWatchdog()
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "lyrad", versionString())
		return 0
	case "serve":
		return cmdServe(rest, stderr)
	case "stdio":
		return cmdStdio(rest, stdin, stdout, stderr)
	case "doctor":
		return cmdDoctor(rest, stdout, stderr)
	case "takeover", "resume":
		return cmdAdmin(cmd, rest, stdout, stderr)
	case "approve":
		return cmdApprove(rest, stdout, stderr)
	case "audit":
		return cmdAudit(rest, stdout, stderr)
	case "mcp-config":
		return cmdMCPConfig(rest, stdout, stderr)
	case "service":
		return cmdService(rest, stdout, stderr)
	case "status":
		return cmdStatus(rest, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		printSettings(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "lyrad: unknown command %q\n\n%s", cmd, usage)
	return 2
}

// printSettings lists every LYRA_BROWSER_* setting with its default.
func printSettings(w io.Writer) {
	fmt.Fprintln(w, "\nSettings (LYRA_BROWSER_*; VEGA_BROWSER_* honoured, the new name winning; flags win over both):")
	for _, s := range settings {
		def := s.def
		if def == "" {
			def = "unset"
		}
		fmt.Fprintf(w, "  LYRA_BROWSER_%-22s %-22s %s\n", s.name, def, s.doc)
	}
}

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// parse reads a command's flags (serve: serve's own too, --http and
// --port) and resolves the settings. nil options: the command exits with
// code, 0 after --help (the flags printed), 2 after a usage error.
func parse(name string, args []string, stderr io.Writer, serve bool, extra func(*flag.FlagSet)) (*options, int) {
	return parseArgs(name, args, stderr, serve, extra, nil)
}

// parseArgs is parse for a command that takes arguments besides its flags,
// before, between or after them: they are put in positional.
func parseArgs(name string, args []string, stderr io.Writer, serve bool, extra func(*flag.FlagSet), positional *[]string) (*options, int) {
	fs := flag.NewFlagSet("lyrad "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{set: map[string]bool{}}
	registerFlags(fs, o, serve)
	if name == "serve" || name == "stdio" {
		o.surf = &surfaceOptions{}
		registerSurfaceFlags(fs, o.surf)
	}
	if extra != nil {
		extra(fs)
	}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, 0
			}
			return nil, 2
		}
		if positional == nil || fs.NArg() == 0 {
			break
		}
		*positional = append(*positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lyrad %s: unexpected argument %q\n", name, fs.Arg(0))
		return nil, 2
	}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	if o.surf != nil {
		if err := o.surf.apply(o); err != nil {
			fmt.Fprintf(stderr, "lyrad %s: %v\n", name, err)
			return nil, 2
		}
	}
	if err := o.resolve(); err != nil {
		fmt.Fprintf(stderr, "lyrad %s: %v\n", name, err)
		return nil, 2
	}
	if o.surf != nil {
		o.surf.applyTrust(o)
	}
	return o, 0
}

// newLogger writes JSON to stderr or --log-file; never to stdout, which is
// the protocol's in stdio mode.
func newLogger(o *options, stderr io.Writer) (*zap.Logger, func(), error) {
	level := zapcore.InfoLevel
	if o.logLevel != "" {
		if err := level.Set(o.logLevel); err != nil {
			return nil, nil, fmt.Errorf("log level %q: use debug, info, warn or error", o.logLevel)
		}
	}
	var ws zapcore.WriteSyncer = zapcore.AddSync(stderr)
	closer := func() {}
	if o.logFile != "" {
		f, err := os.OpenFile(o.logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, err
		}
		ws = f
		closer = func() { f.Close() }
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.Lock(ws), level)
	return zap.New(scrubCore{core}), closer, nil
}

// daemon is everything one data directory's server holds.
type daemon struct {
	o       *options
	data    datadir.Dir
	log     *zap.Logger
	audit   *audit.Log
	mgr     *session.Manager
	release func()
}

// openDaemon takes the data directory: its lock, its audit trail, a session
// manager. A second holder is refused with who holds it.
func openDaemon(o *options, log *zap.Logger) (*daemon, error) {
	data := o.data()
	if err := data.Create(); err != nil {
		return nil, err
	}
	release, err := data.LockDaemon()
	if err != nil {
		return nil, err
	}
	al, err := audit.OpenWith(data.Audit(), audit.Options{MaxFileBytes: o.auditFileBytes, MaxTotalBytes: o.auditMaxBytes})
	if err != nil {
		release()
		return nil, err
	}
	channel, exe := browserChoice(o.chrome)
	// This binary is the browser's watchdog too (lyrad __watchdog).
	self, err := os.Executable()
	if err != nil {
		log.Warn("cannot find lyrad's own binary for the browser's watchdog", zap.Error(err))
	}
	mgr := session.New(session.Config{
		Data: data, Watchdog: self, Channel: channel, Executable: exe, Headless: o.headless, Proxy: o.proxy,
		OwnerIdleTimeout: o.ownerIdle, NavigationTimeout: o.navTimeout, Logger: log, Audit: al,
		ConsentChannel: o.consentChannel, ConsentTimeout: o.consentTimeout, GrantTTL: o.grantTTL,
		ApprovalTimeout: o.approvalTimeout, ApproveCommand: o.approveCommand(),
		ReleaseGrace: o.releaseGrace, ReconnectGrace: o.reconnectGrace, HTTPSessionTimeout: o.httpSessionTimeout, Enforcement: o.enforcement, Trust: o.trust, GuardSends: o.guardSends,
		CaptureDir: o.captureDir, CaptureKeep: o.captureKeep, UploadRoots: o.uploadRoots,
		DownloadDir: o.downloadDir, DownloadKeep: o.downloadKeep, DownloadMaxBytes: o.downloadMaxBytes, DownloadTimeout: o.downloadTimeout,
		AuditTabBytesPerDay: tabBudget(o.auditTabBytesPerDay),
	})
	for _, w := range o.warnings {
		log.Warn("setting entry dropped", zap.String("warning", w))
	}
	return &daemon{o: o, data: data, log: log, audit: al, mgr: mgr, release: release}, nil
}

// tabBudget is the session's AuditTabBytesPerDay for the setting, where 0
// turns the limit off.
func tabBudget(n int64) int64 {
	if n == 0 {
		return -1
	}
	return n
}

// close: browser closed, audit flushed, lock released.
func (d *daemon) close() {
	d.mgr.Shutdown()
	_ = d.audit.Close()
	_ = os.Remove(d.data.Socket())
	d.release()
}

// signals ends the context on SIGINT, SIGTERM and SIGHUP (the terminal
// closed): each is an orderly stop, the browser closed, the audit flushed,
// the lock released. Deaths no handler sees (SIGKILL, a panic) take the
// browser with them through its watchdog and, on Linux, its parent-death
// signal (see package launch).
func signals() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}

func cmdServe(args []string, stderr io.Writer) int {
	o, code := parse("serve", args, stderr, true, nil)
	if o == nil {
		return code
	}
	log, closeLog, err := newLogger(o, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "lyrad serve:", err)
		return 2
	}
	defer closeLog()
	d, err := openDaemon(o, log)
	if err != nil {
		var held *datadir.HeldError
		if errors.As(err, &held) {
			fmt.Fprintf(stderr, "lyrad serve: the data directory %s is held by pid %d (another lyrad serve or lyrad stdio). Stop it, or use another --data-dir.\n", o.dataDir, held.PID)
			return 1
		}
		fmt.Fprintln(stderr, "lyrad serve:", err)
		return 1
	}
	defer d.close()
	ctx, stop := signals()
	defer stop()

	// Every front door is bound before a word is printed: a port that is
	// taken fails the start with nothing said to be serving.
	var (
		hl   net.Listener
		port int
		tok  string
	)
	if o.http {
		if hl, port, err = transport.ListenHTTP(o.port); err != nil {
			if errors.Is(err, syscall.EADDRINUSE) {
				fmt.Fprintf(stderr, "lyrad serve: --port %d: 127.0.0.1:%d is taken by another program (%v). Stop it, or give another --port (0 picks a free one).\n", o.port, o.port, err)
			} else {
				fmt.Fprintf(stderr, "lyrad serve: --port %d: %v\n", o.port, err)
			}
			return 1
		}
		defer hl.Close()
		if tok, err = d.data.LoadToken(); err != nil {
			fmt.Fprintln(stderr, "lyrad serve: token:", err)
			return 1
		}
	}
	ln, err := transport.ListenSocket(d.data.Socket())
	if err != nil {
		fmt.Fprintln(stderr, "lyrad serve: socket:", err)
		return 1
	}
	srv, lyraSrv, pwSrv := o.surf.servers(tools.Deps{Session: d.mgr, Logger: log})
	d.serveAdmin(ctx)
	errs := make(chan error, 3)
	go func() { errs <- transport.ServeSocket(ctx, lyraSrv, ln, log) }()
	// Playwright MCP's surface on a socket of its own, for
	// `lyrad stdio --surface playwright`.
	if pln, err := transport.ListenSocket(d.data.PlaywrightSocket()); err == nil {
		go func() { errs <- transport.ServeSocket(ctx, pwSrv, pln, log) }()
		defer os.Remove(d.data.PlaywrightSocket())
	} else {
		log.Warn("no socket for the playwright surface", zap.Error(err))
	}
	fmt.Fprintf(stderr, "lyrad %s serving MCP on %s (connect with: lyrad stdio --data-dir %s)\n", versionString(), d.data.Socket(), o.dataDir)

	if o.http {
		hs := &http.Server{Handler: transport.HTTPHandler(srv.Server, tok, port, o.httpSessionTimeout), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := hs.Serve(hl); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errs <- err
			}
		}()
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = hs.Shutdown(sctx)
		}()
		// Where we listen, for lyrad doctor (0600; removed on shutdown).
		if rm, err := d.data.WriteEndpoint(fmt.Sprintf("http://127.0.0.1:%d/mcp", port)); err != nil {
			log.Warn("cannot write "+filepath.Base(d.data.HTTPInfo()), zap.Error(err))
		} else {
			defer rm()
		}
		fmt.Fprintf(stderr, "lyrad serving MCP over HTTP at http://127.0.0.1:%d/mcp\n  Authorization: Bearer %s\n", port, tok)
	}
	log.Info("serving", zap.String("data_dir", o.dataDir), zap.Bool("http", o.http))
	select {
	case <-ctx.Done():
		log.Info("signal received; shutting down")
	case err := <-errs:
		if err != nil {
			log.Error("front door failed", zap.Error(err))
			return 1
		}
	}
	return 0
}

func cmdStdio(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, code := parse("stdio", args, stderr, false, nil)
	if o == nil {
		return code
	}
	log, closeLog, err := newLogger(o, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "lyrad stdio:", err)
		return 2
	}
	defer closeLog()
	ctx, stop := signals()
	defer stop()
	sock := o.surf.socket(o.data())
	deadline := time.Now().Add(3 * time.Second)
	for {
		// A daemon holds this data directory: share its browser.
		if conn, err := net.Dial("unix", sock); err == nil {
			log.Info("relaying to the daemon", zap.String("socket", sock))
			if err := transport.RelayConn(ctx, conn, stdin, stdout); err != nil && ctx.Err() == nil {
				log.Warn("relay ended", zap.Error(err))
			}
			return 0
		}
		d, err := openDaemon(o, log)
		if err == nil {
			return serveStdio(ctx, d, stdin, stdout)
		}
		var held *datadir.HeldError
		if !errors.As(err, &held) || time.Now().After(deadline) {
			if held != nil {
				fmt.Fprintf(stderr, "lyrad stdio: the data directory %s is held by pid %d, whose socket does not answer. Stop it, or use another --data-dir.\n", o.dataDir, held.PID)
			} else {
				fmt.Fprintln(stderr, "lyrad stdio:", err)
			}
			return 1
		}
		// The holder is starting or stopping; its socket comes or the lock goes.
		time.Sleep(100 * time.Millisecond)
	}
}

// serveStdio serves MCP on stdin/stdout in this process, and on the socket
// too, so a second client shares this browser.
func serveStdio(ctx context.Context, d *daemon, stdin io.Reader, stdout io.Writer) int {
	defer d.close()
	srv, lyraSrv, pwSrv := d.o.surf.servers(tools.Deps{Session: d.mgr, Logger: d.log})
	d.serveAdmin(ctx)
	if ln, err := transport.ListenSocket(d.data.Socket()); err == nil {
		go func() { _ = transport.ServeSocket(ctx, lyraSrv, ln, d.log) }()
	} else {
		d.log.Warn("no socket for other clients", zap.Error(err))
	}
	if ln, err := transport.ListenSocket(d.data.PlaywrightSocket()); err == nil {
		go func() { _ = transport.ServeSocket(ctx, pwSrv, ln, d.log) }()
		defer os.Remove(d.data.PlaywrightSocket())
	} else {
		d.log.Warn("no socket for the playwright surface", zap.Error(err))
	}
	t := &ioTransport{in: stdin, out: stdout}
	if err := srv.ServeStream(ctx, t.transport()); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		d.log.Info("stdio session ended", zap.Error(err))
	}
	return 0
}
