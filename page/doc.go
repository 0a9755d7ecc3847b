// Package page holds what lyrad does to a page over CDP: its isolated
// world and the scripts it runs there, real input, locating elements in a
// frame, aria-ref handles, the layout snapshot a tree read uses, and small
// reads (a node by a page-side function, the visible-text excerpt). It
// knows nothing of callers, grants or owners; package session decides who
// may act and calls page to do it. cdproto's own page domain is imported
// as cdppage.
package page
