package session

import (
	"time"

	"go.uber.org/zap"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/policy"
)

// Config is what the session needs to know. cmd/lyrad fills it from flags
// and the environment; nothing here reads either.
type Config struct {
	// Data is the data directory: the persistent profile, its lock, the
	// audit trail and the remembered headless user agent.
	Data datadir.Dir
	// Watchdog is lyrad's own binary, which launch starts beside each
	// browser in its hidden watchdog mode so that the browser dies with
	// lyrad on every system; "" for none (a test binary).
	Watchdog string
	// Executable is an explicit browser path; Channel picks an installed
	// browser by name (chrome, msedge, chromium, ...). Both empty: Chrome,
	// then Edge, then Chromium.
	Executable string
	Channel    string
	// Headless: nil follows the host (headless when there is no display).
	Headless *bool
	Proxy    string
	// OwnerIdleTimeout is how long the driving MCP session may hold the
	// browser without using it before the window is closed and handed on.
	OwnerIdleTimeout time.Duration
	// NavigationTimeout bounds navigate when the page never reaches the
	// requested load state.
	NavigationTimeout time.Duration
	ExtraArgs         []string
	// CaptureDir is where screenshot and read_image write their PNGs
	// (default <Data>/captures); CaptureKeep is how many of them are
	// kept, the oldest pruned first (default 200).
	// UploadRoots are the directories upload_file may take files from
	// (LYRA_BROWSER_UPLOAD_ROOTS); empty: the user's home (uploads.go).
	UploadRoots []string
	CaptureDir  string
	CaptureKeep int
	// DownloadDir is where declared downloads are kept (default
	// <Data>/downloads); DownloadKeep how many the ledger keeps before
	// pruning the oldest (0: all); DownloadMaxBytes the largest file (0: no
	// limit); DownloadTimeout how long a started transfer may take
	// (default 120 s).
	DownloadDir      string
	DownloadKeep     int
	DownloadMaxBytes int64
	DownloadTimeout  time.Duration

	// The guard's judgement (see package policy).
	// ConsentChannel: auto (elicitation when the client can answer, else
	// confirm=true), elicit, legacy (confirm=true only) or off (granted
	// without asking).
	ConsentChannel string
	ConsentTimeout time.Duration
	// ApprovalTimeout is how long a question the client could not put to
	// its user waits for `lyrad approve`, and an answer given there for the
	// call to be repeated (LYRA_BROWSER_APPROVAL_TIMEOUT; approvals.go).
	// ApproveCommand is how the user runs that verb on this data
	// directory, as the refusal tells it ("lyrad approve" by default).
	ApprovalTimeout time.Duration
	ApproveCommand  string
	GrantTTL        time.Duration
	ReleaseGrace    time.Duration
	Enforcement     policy.Mode
	Trust           policy.Trust
	// GuardSends: SendsAudit records every send a page makes that is not
	// a document and not a GET; SendsJudge also holds them and refuses
	// those to a site the session holds no grant for.
	GuardSends string
	// ReconnectGrace is how long a driver that disconnected keeps its
	// window and tabs for a new session of the same client through the
	// same front door (LYRA_BROWSER_RECONNECT_GRACE). 0: the browser is
	// handed on, its window closed, at once.
	ReconnectGrace time.Duration
	// HTTPSessionTimeout is how long an HTTP session may go with nothing
	// open before it is closed (LYRA_BROWSER_HTTP_SESSION_TIMEOUT; the
	// front door enforces it). Only session_conflict's hint uses it here.
	HTTPSessionTimeout time.Duration

	// AuditTabBytesPerDay bounds the audit rows one tab's page sets off by
	// itself (guard decisions, sends, refused downloads) to this many bytes
	// in any day; rows past it are counted in "suppressed" rows
	// (auditbudget.go). 0: DefaultAuditTabBytesPerDay; negative: no limit.
	AuditTabBytesPerDay int64

	Logger *zap.Logger
	Audit  *audit.Log
}

// GuardSends values.
const (
	SendsAudit = "audit"
	SendsJudge = "judge"
)

func (c *Config) defaults() {
	if c.GuardSends == "" {
		c.GuardSends = SendsAudit
	}
	if c.AuditTabBytesPerDay == 0 {
		c.AuditTabBytesPerDay = DefaultAuditTabBytesPerDay
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	if c.Audit == nil {
		c.Audit = audit.Nop()
	}
	if c.OwnerIdleTimeout <= 0 {
		c.OwnerIdleTimeout = 900 * time.Second
	}
	if c.CaptureDir == "" && c.Data.Root() != "" {
		c.CaptureDir = c.Data.Captures()
	}
	if c.DownloadDir == "" && c.Data.Root() != "" {
		c.DownloadDir = c.Data.Downloads()
	}
	if c.DownloadTimeout <= 0 {
		c.DownloadTimeout = 120 * time.Second
	}
	if c.CaptureKeep <= 0 {
		c.CaptureKeep = 200
	}
	if c.NavigationTimeout <= 0 {
		c.NavigationTimeout = 30 * time.Second
	}
	if c.ConsentChannel == "" {
		c.ConsentChannel = ConsentAuto
	}
	if c.ConsentTimeout <= 0 {
		c.ConsentTimeout = 300 * time.Second
	}
	if c.ApprovalTimeout <= 0 {
		c.ApprovalTimeout = 10 * time.Minute
	}
	if c.ApproveCommand == "" {
		c.ApproveCommand = "lyrad approve"
	}
	if c.GrantTTL <= 0 {
		c.GrantTTL = policy.DefaultGrantTTL
	}
	if c.ReleaseGrace <= 0 {
		c.ReleaseGrace = policy.DefaultReleaseGrace
	}
	if c.Enforcement == "" {
		c.Enforcement = policy.Enforce
	}
}
