// Package page holds what lyrad does to a page over CDP: its isolated
// world, real input, the scripts it runs there. It knows nothing of
// callers, grants or owners; package session decides who may act and
// calls page to do it. cdproto's own page domain is imported as cdppage.
package page
