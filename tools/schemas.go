package tools

// Output schemas and shared parameters. Every byte here is in every
// conversation's context (tools/list is sent whole before the first call).
// A tool's output schema is generated from its reply type (reply.go and
// each tool's file) with jsonschema-go, descriptions from the fields'
// jsonschema tags, which say only what a name cannot; on the wire it lists
// the fields by name (wireOut). The envelope every reply has (status,
// hint, error) and what every acting call answers (actShared) are said
// once, in the server's instructions; the shapes of nested objects
// (clicked, dialogs, download) are in README.md's "Tools: the long form".

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// outOf is the output schema's properties for reply type T, as JSON
// Schema objects. T is a struct, or a pointer to one.
func outOf[T any]() map[string]any {
	s, err := jsonschema.ForType(reflect.TypeFor[T](), nil)
	if err != nil {
		panic(err) // a reply type no schema can describe: a programming error
	}
	b, _ := json.Marshal(s)
	var out struct {
		Properties map[string]any `json:"properties"`
	}
	_ = json.Unmarshal(b, &out)
	// A field's few words are its desc tag (jsonschema-go's own tag
	// refuses words that begin like "mode=text").
	t := reflect.TypeFor[T]()
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for _, f := range reflect.VisibleFields(t) {
		d, ok := f.Tag.Lookup("desc")
		if !ok || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if p, ok := out.Properties[name].(map[string]any); ok {
			p["description"] = d
		}
	}
	return out.Properties
}

// outs is the properties of several reply types, for a tool that answers
// one of them (tabs lists, or switches and closes).
func outs(props ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, p := range props {
		for k, v := range p {
			out[k] = v
		}
	}
	return out
}

// actShared are the fields every acting call answers, said once in the
// server's instructions (transport.Instructions) and left out of the acting
// calls' schemas on the wire (wireOut): where the tab stands, what the call
// set off, changes (what it changed in the page's tree) and a file it kept.
var actShared = []string{"url", "title", "tab_count", "new_tab", "navigated", "navigating", "dialogs", "dialogs_more", "changes", "read_id", "download"}

// envelopeKeys are what every reply may carry, said once in the
// instructions.
var envelopeKeys = []string{"status", "hint", "error"}

// Shared parameters. Their names, kinds and defaults are the lyra tools'
// published ones: agents written against them keep working.

// selectorHelp is the selector syntax in a few words; the guide has the rest.
const selectorHelp = "CSS, text=..., xpath=... or aria-ref=eN."

func selectorParam(required bool) Param {
	return Param{Name: "selector", Kind: "string", Required: required, Description: selectorHelp}
}

var (
	timeoutParam = Param{Name: "timeout_ms", Kind: "integer", Description: "Max 30000."}
	reasonParam  = Param{Name: "reason", Kind: "string", Description: "Shown to the user."}
	// confirm is said once, in the server's instructions.
	confirmParam  = Param{Name: "confirm", Kind: "boolean"}
	submitsParam  = Param{Name: "submits", Kind: "boolean", Description: "It sends a form (asks SUBMIT)."}
	downloadParam = Param{Name: "download", Kind: "boolean", Description: "Keep the file it offers (asks DOWNLOAD)."}
)

// Shared texts of the acting tools' descriptions, in a few words each; the
// README's "Tools: the long form" has the rest.
const (
	actConsent = "Asks INTERACT once per site."
	failsFast  = "After a timeout, look: it may have landed."
	setsOff    = "A navigation no grant covers: blocked_by_policy. More: lyrad://guide."
)
