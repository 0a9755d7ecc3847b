// Package policy is the judgement of every document request the browser is
// about to send: what the request is, what it needs, and whether the agent
// holds it. It knows nothing of CDP or MCP; cdpguard holds the request, the
// session wires a Decider to Classify and Judge, and the tools buy grants.
//
// The agent declares what it intends; the browser is judged on what it
// actually does. A tool cannot know what a page will do with a click, so the
// line is drawn at the request, whatever produced it.
//
// # Sites
//
// A site is an Origin: scheme, host, port, with 80 and 443 filled in and the
// host written as the browser will request it (the URL standard's host
// parser): lower-cased, an internationalised name in its xn-- form
// (bücher.example is xn--bcher-kva.example), any numeric IPv4 spelling as
// dotted decimal (2130706433, 0x7f.1 and 127.1 are 127.0.0.1), IPv6
// compressed. So a grant given in any spelling is the grant the browser's
// request is judged against. A host the browser would refuse, or would
// write otherwise than this reading can be sure of, gives no origin. Only
// http and https URLs have one. file:, data:,
// javascript:, about: (and a blob: around any of them) have none, and a URL
// with no origin is never "the same site" as anything, itself included.
//
// # Grants
//
// A grant is (session, scope, capability). The scope is an origin; for a URL
// with no origin it is that one exact URL, and such a grant covers it once
// (otherwise every file: URL would be one site, and one yes a yes to the disk).
//
//	NAVIGATE  load a document from this origin; implies INTERACT
//	INTERACT  click and type while staying on this origin
//	SUBMIT    send a body or a mutating method            single-use
//	UPLOAD    give a file to a page                        single-use
//	PUBLISH   make content publicly visible                single-use
//	DOWNLOAD  write a file to disk                         single-use
//
// NAVIGATE and INTERACT last LYRA_BROWSER_GRANT_TTL (600 s). A single-use
// grant lasts until it is spent; when the action that bought it ends, what is
// left of it is handed back LYRA_BROWSER_RELEASE_GRACE (2 s) later, because a
// click's navigation can leave just after the call returns (a page that sends
// inside that window rides the approval: the price of the window). Closing
// the browser, or handing it to another session, drops every grant.
//
// # Where the line falls
//
//   - A GET navigation that stays on the origin of the document issuing it is
//     Interaction and needs INTERACT there. A search box puts what you typed in
//     the query string; gating that would gate every link with parameters.
//   - A body, or any method but GET and HEAD, is a Submission. It is
//     authorised by the origin that sends it (the document issuing it): it
//     spends one SUBMIT credit of the sender. A send to another origin goes
//     there as any navigation does and also needs NAVIGATE on its
//     destination (held or trusted; not spent, not renewed); it is recorded
//     as cross_origin_send. A credit approved with a publish state
//     (ApprovedForm) pays only for a body that sends it, when the browser
//     hands the body over. A document with no origin (an about:blank frame,
//     a file: page) cannot lend one, and its send is refused (no_sender).
//   - A main-frame GET to another origin, to a URL with no origin, or a load
//     the browser starts from no document is Leaving and needs NAVIGATE on the
//     destination. A site bouncing to its own subdomain lands here too: it
//     cannot be told from a hostile page escaping.
//   - A GET document load inside an iframe is Embed and goes through: a page
//     composing itself is not the user going anywhere. A form posted from an
//     iframe is still a Submission, paid by the frame's own origin.
//
// # Redirect hops
//
// A hop is judged as the navigation it leads to, with what the browser will
// send: 307 and 308 keep the method and body (so a repeated POST is a
// Submission and needs a second credit), 301 and 302 turn a POST into a
// body-less GET, 303 turns anything but GET or HEAD into one (so a 302 after
// a POST to another origin is Leaving). A hop that stays on the origin of the
// hop before it, or upgrades it from http to https on the same host and the
// default ports, is the request carrying on and is not judged again; any
// other port, or https to http, is somewhere new. A refused hop's row names
// redirect_from, and its verdict redirected_to (the origin only).
//
// # Judgement
//
// Enforce mode refuses what nothing covers (the guard answers 204, so the
// page stays standing) and spends the single-use credit of what it lets
// through. Observe mode refuses nothing and spends nothing; what enforce would
// have refused is marked would_deny. While the user holds a takeover
// everything goes through, nothing is spent, and the row says user_driven.
// What an action declares (submits=true, publish) is bought as a single-use
// grant on the page's origin before the action runs; the first send from that
// origin spends it, and a declared publish lets that send spend PUBLISH
// instead of SUBMIT. The covering grant's consent_channel is recorded: elicit (the user
// answered), legacy (the model's confirm=true on a client that cannot be
// asked), trusted, off.
//
// # Trusted origins
//
// LYRA_BROWSER_TRUSTED_ORIGINS pre-approves NAVIGATE, and the INTERACT it
// implies; LYRA_BROWSER_TRUSTED_SEND_ORIGINS pre-approves SUBMIT and UPLOAD
// and nothing else. Neither ever answers PUBLISH or DOWNLOAD, an opaque URL,
// a takeover, or anything when approval is off. A site the navigate list
// answers gets a real NAVIGATE grant recorded consent_channel=trusted with the
// entry that matched. Lists are comma- or whitespace-separated:
//
//	https://www.example.com   exactly that scheme, host and port
//	http://localhost:3000     (a trailing "/" is allowed on any entry,
//	                          nothing more)
//	example.com               https on port 443, that host only: not
//	                          www.example.com, not http, not :8443
//	*.example.com             https on port 443, any subdomain at any depth,
//	                          never example.com itself
//
// A bare host means https only, the narrower of the two ways to read it. A
// site that redirects between example.com and www.example.com needs both
// (example.com and *.example.com).
//
// Hosts are compared as parsed fields, never as text: https://example.com.evil.io,
// https://example.com@evil.io and https://example.com:8443 are not
// example.com. An entry that cannot be read is dropped with a warning and the
// rest still load: an empty entry, a malformed one, a lone *, a single-label
// wildcard (*.com), a wildcard on an IP address, an IPv6 literal, a path,
// query or fragment, userinfo, a port on a bare host (write
// http://localhost:3000), a wildcard with a scheme, non-ASCII (write xn--),
// a numeric host that is not a dotted-quad IPv4, a trailing dot, and any
// scheme but http(s) (file:, data:, about:, blob: name no site). The list
// does not know public suffixes: *.co.uk would be accepted, so do not write it.
package policy
