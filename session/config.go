package session

import (
	"time"

	"go.uber.org/zap"

	"github.com/lyrad/lyrad/audit"
)

// Config is what the session needs to know. cmd/lyrad fills it from flags
// and the environment; nothing here reads either.
type Config struct {
	// DataDir holds the persistent profile, its lock, the audit trail and
	// the remembered headless user agent.
	DataDir string
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

	Logger *zap.Logger
	Audit  *audit.Log
}

func (c *Config) defaults() {
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	if c.Audit == nil {
		c.Audit = audit.Nop()
	}
	if c.OwnerIdleTimeout <= 0 {
		c.OwnerIdleTimeout = 900 * time.Second
	}
	if c.NavigationTimeout <= 0 {
		c.NavigationTimeout = 30 * time.Second
	}
}
