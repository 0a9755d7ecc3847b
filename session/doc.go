// Package session owns the browser's life and the rules around it: launch,
// the profile lock, which MCP session drives, and what happens when the guard
// is lost. Tools ask it to act; it never speaks MCP.
//
// # Parts
//
// [Manager] is what the tools call. Its own state is the configuration and
// life, the lock that serialises launching and closing; the rest is held by
// parts that keep their state under their own locks. New builds them and
// hands each the others it needs, as a field (sendGuard reads ownership) or
// a func (auditBudget asks who drives); no part holds the Manager.
//
//   - ownership (ownership.go, reconnect.go, handoff.go): the browser and
//     whose turn it is to drive it. The driver and its idle timer, a
//     disconnected driver's turn kept for its client, the handing on of a
//     turn (idle, consented, superseded), the lost guard, and the browsers
//     still releasing the profile. Every call is admitted here (enter).
//   - auditBudget (auditbudget.go): the audit rows a tab's page sets off by
//     itself, bounded by rate and by bytes a day, and what they held back.
//   - sendGuard (sends.go): the guard's judge. It decides each paused
//     request (documents by policy.Judge, sends by their destination) and
//     records sends and the guard's decisions; its own state is the acting
//     call under way and the send check armed in a page.
//   - grantDesk (grants.go, consent.go): what a call buys with the user's
//     yes: the grants to load and use a site, the single-use credits an
//     action's intent declares, and the questions behind them through the
//     consent channel. Its own state is the questions asked and not yet
//     answered (pendingAsks, asks.go), and those the client could not
//     ask, waiting for the user's answer at the terminal (approvals,
//     approvals.go: lyrad approve); ownership's handoff shares both.
//   - launcher (browser.go, downloads.go): the start of a browser through
//     package launch, the guard's judgement and hooks wired to the parts,
//     the downloads put behind the guard. Its own state is the download
//     directory, opened on first use. It runs under Manager.life.
//   - fileRules (files.go): which file: URLs are never opened.
//     Configuration only: no lock.
//   - takeovers (takeover.go) and policy.Grants: the user holding the
//     browser, and the grants.
//
// The guard's callbacks (launcher.attach) go straight to the part
// concerned: decisions and sends to sendGuard, a lost connection or an
// unguarded target to ownership, which kills the browser.
//
// # Lock order
//
// Manager.life, then ownership.mu, then the locks of policy.Grants and
// audit.Log (a turn that ends drops its grants and is recorded under
// ownership.mu). Every other lock is taken alone: rowLimiter's and
// refillTimer's (auditBudget), calls' and sendChecks' (sendGuard),
// pendingAsks' and approvals' (grantDesk), the download directory's (launcher), and
// takeovers'. Code holding one of them
// takes no other lock of session's, and no lock but life is held across a
// call to the browser, nor across a question to the user (grantDesk asks
// holding none). So a part never calls another while holding its own
// lock: auditBudget asks who drives after letting its locks go, and
// ownership flushes the budget after letting mu go.
package session
