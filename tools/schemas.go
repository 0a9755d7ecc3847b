package tools

// Output schemas and shared parameters. Every byte here is in every
// conversation's context (tools/list is sent whole before the first call),
// so output schemas name each field and its type and describe only what its
// name cannot say; the envelope every reply has (status, hint, error) is
// said once, in the server's instructions; the shapes of the fields the
// acting calls share (clicked, dialogs, download) are in README.md's
// "Tools: the long form". Tools that answer the same fields share one Go
// value.

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

// elementOut names an element as replies do.
var elementOut = sObj("")

// pageOut is where the tab stands.
var pageOut = map[string]any{"url": sStr(""), "title": sStr(""), "tab_count": sInt("")}

// actOut is the envelope of every acting call: where the tab stands and
// what the call set off.
var actOut = merge(pageOut, map[string]any{
	"new_tab":    sBool(""),
	"navigated":  sBool(""),
	"navigating": sBool(""),
	"dialogs":    sArr(""),
})

// actShared are the fields every acting call answers, said once in the
// server's instructions (transport.Instructions) and left out of the acting
// calls' schemas on the wire (wireOut): where the tab stands, what the call
// set off, and changes (what it changed in the page's tree).
var actShared = []string{"url", "title", "tab_count", "new_tab", "navigated", "navigating", "dialogs", "changes"}

// downloadOut is what a call that may keep a file adds.
var downloadOut = map[string]any{"download": sObj("")}

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

// Shared parameters. Their names, kinds and defaults are the lyra tools'
// published ones: agents written against them keep working.

// selectorHelp is the selector syntax in a few words; the guide has the rest.
const selectorHelp = "CSS, text=..., xpath=... or aria-ref=eN."

func selectorParam(required bool) param {
	return param{name: "selector", kind: "string", required: required, description: selectorHelp}
}

var (
	timeoutParam = param{name: "timeout_ms", kind: "integer", description: "Max 30000."}
	reasonParam  = param{name: "reason", kind: "string", description: "Shown to the user."}
	// confirm is said once, in the server's instructions.
	confirmParam  = param{name: "confirm", kind: "boolean"}
	submitsParam  = param{name: "submits", kind: "boolean", description: "It sends a form (asks SUBMIT)."}
	downloadParam = param{name: "download", kind: "boolean", description: "Keep the file it offers (asks DOWNLOAD)."}
)

// Shared texts of the acting tools' descriptions, in a few words each; the
// README's "Tools: the long form" has the rest.
const (
	actConsent = "Asks INTERACT once per site."
	failsFast  = "After a timeout, look: it may have landed."
	setsOff    = "A navigation no grant covers: blocked_by_policy. More: lyrad://guide."
)
