// Package testenv is the test harness every package's tests share: what a
// test needs from the machine (a browser, a tool such as ss or Xvfb) and how
// it tells a process is still running. Only tests import it.
//
// The rule for what a test needs: under -short (task unit) a test that
// starts a browser skips; otherwise a missing browser or tool skips the
// test on a developer's machine, and fails it in CI (CI=true), where the
// Taskfile's browser task installs them, so a broken CI image cannot pass
// by skipping everything.
//
// It imports no package of lyrad, so chrome's own tests can use it: the
// caller passes the discovery (chrome.Find in practice).
package testenv
