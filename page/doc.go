// Package page holds what lyrad does to a page over CDP: its isolated
// world and the scripts it runs there, real input, locating elements
// across a tab's frames and waiting for them to be actionable, aria-ref
// handles, the tab's frames and where they stand (pointer geometry), the
// reads (tree, text, links, forms), the wait_for conditions, captures,
// navigation and history, the tabs, the browser's overlay (banner,
// highlight), file inputs, native dialogs, the listener for a person's
// input, and the watcher of an acting call.
//
// Every per-tab CDP command lyrad sends goes through here, and every
// script: each lives in js/ (js.go), embedded and unexported, behind a
// typed operation whose answer page decodes. It knows nothing of callers,
// grants or owners: a tab reaches it as a Tab (its session and a way to
// list its out-of-process iframes), and its failures are plain errors;
// package session decides who may act, calls page to do it, and turns what
// page answers into its envelopes. cdproto's own page domain is imported
// as cdppage.
package page
