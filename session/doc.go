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
//   - sendGuard (sends.go): what pages send that is not a document: the
//     acting call under way, the send check armed in a page, and the
//     recording and judging of sends and of the guard's decisions.
//   - fileRules (files.go): which file: URLs are never opened.
//     Configuration only: no lock.
//   - takeovers (takeover.go), pendingAsks (asks.go), policy.Grants and the
//     download store: the user holding the browser, consent asked and not
//     yet answered, grants, the download directory.
//
// The guard's callbacks (browser.go) go straight to the part concerned:
// decisions and sends to sendGuard, a lost connection or an unguarded
// target to ownership, which kills the browser.
//
// # Lock order
//
// Manager.life, then ownership.mu, then the locks of policy.Grants and
// audit.Log (a turn that ends drops its grants and is recorded under
// ownership.mu). Every other lock is taken alone: rowLimiter's and
// refillTimer's (auditBudget), calls' and sendChecks' (sendGuard),
// takeovers' and pendingAsks'. Code holding one of them
// takes no other lock of session's, and no lock but life is held across a
// call to the browser. So a part never calls another while holding its
// own lock: auditBudget asks who drives after letting its locks go, and
// ownership flushes the budget after letting mu go.
package session
