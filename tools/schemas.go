package tools

// Output schemas and shared parameters. Every byte here is in every
// conversation's context (tools/list is sent whole before the first call),
// so property descriptions are terse, a property that says what it is by
// its name has none, and tools that answer the same envelope share one Go
// value. The long form is the lyrad://guide resource (guide.go).

func schema(kind, desc string) map[string]any {
	s := map[string]any{"type": kind}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

func sStr(desc string) map[string]any  { return schema("string", desc) }
func sInt(desc string) map[string]any  { return schema("integer", desc) }
func sBool(desc string) map[string]any { return schema("boolean", desc) }
func sArr(desc string) map[string]any  { return schema("array", desc) }
func sObj(desc string) map[string]any  { return schema("object", desc) }

// sNull is a field that is null when there was nothing to report.
func sNull(kind, desc string) map[string]any {
	s := schema(kind, desc)
	s["type"] = []string{kind, "null"}
	return s
}

// merge is base with extra's properties added; neither is changed.
func merge(base map[string]any, extra map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(extra))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// envelopeOut is what every reply has: status is ok or what stopped the
// call (the server's instructions and the guide say so once), hint the next
// move, error what went wrong.
var envelopeOut = map[string]any{"status": sStr(""), "hint": sStr(""), "error": sStr("")}

// elementOut names an element as replies do.
var elementOut = sObj("tag, role, name")

// pageOut is where the tab stands.
var pageOut = map[string]any{"url": sStr(""), "title": sStr(""), "tab_count": sInt("")}

// actOut is the envelope of every acting call: where the tab stands and
// what the call set off.
var actOut = merge(pageOut, map[string]any{
	"new_tab":    sBool("later calls act on it"),
	"navigated":  sBool(""),
	"navigating": sBool(""),
	"dialogs":    sArr("type, message, answer, by"),
})

// downloadOut is what a call that may keep a file adds.
var downloadOut = map[string]any{"download": sObj("filename, path, bytes, url_origin")}

// changesOut is what click, type_text, press_key and select_option add:
// what changed in the map, and the read that told it.
var changesOut = map[string]any{
	"changes": sStr(""),
	"read_id": sStr(""),
}

// targetOut is actOut for a call that names its element with a selector.
var targetOut = merge(merge(actOut, changesOut), map[string]any{
	"selector": sStr(""),
	"matches":  sInt(""),
})

// loadOut is actOut for a call that loads a document (navigate, go_back,
// reload_page).
var loadOut = merge(actOut, map[string]any{
	"http_status":  sNull("integer", "null: no HTTP response"),
	"content_type": sNull("string", ""),
	"from_cache":   sBool(""),
	"stayed":       sBool(""),
})

// sentOut is what save_draft and publish answer.
var sentOut = merge(actOut, map[string]any{
	"published": sBool(""),
	"state":     sArr(""),
	"errors":    sArr(""),
	"alert":     sStr(""),
})

// Shared parameters. Their names, kinds and defaults are the seed's.

// selectorHelp is the selector syntax in a few words; the guide has the rest.
const selectorHelp = "CSS, text=..., xpath=... or aria-ref=eN (read_page tree)."

func selectorParam(required bool) param {
	return param{name: "selector", kind: "string", required: required, description: selectorHelp}
}

var (
	timeoutParam  = param{name: "timeout_ms", kind: "integer", description: "ms (default 10000, max 30000)."}
	reasonParam   = param{name: "reason", kind: "string", description: "Shown to the user when asked."}
	confirmParam  = param{name: "confirm", kind: "boolean", description: "Legacy consent, for a client that cannot be asked."}
	submitsParam  = param{name: "submits", kind: "boolean", description: "It sends a form (asks SUBMIT); else a send is stopped."}
	downloadParam = param{name: "download", kind: "boolean", description: "Keep the file it offers (asks DOWNLOAD); else download_blocked."}
)

// Shared texts of the acting tools' descriptions, in a few words each; the
// guide has the long form.
const (
	actConsent = "Needs INTERACT on its site (asked once)."
	failsFast  = "Fails fast, before asking: not_found, hidden, disabled; then timeout (it may have landed: look first), element_not_actionable, page_closed."
	setsOff    = "A navigation it sets off that no grant covers: blocked_by_policy, the tab stays. More: lyrad://guide."
)
