package page

import (
	"embed"
	"strings"

	"github.com/lyrad/lyrad/snapshot"
)

// lyrad's page-side JavaScript lives in js/, one function (or one shared
// fragment) a file, embedded into the binary and never exported: callers
// ask page for an operation (Click, SelectOption, Scroll, ...) and get Go
// values back; the script text and the shape of its answer stay here.
//
// A file's leading comment lines document it and are dropped. A line
//
//	// @include helpers.js find.js
//
// is replaced by those files (their own includes expanded), so a function
// carries the helpers it uses as local definitions: nothing is installed
// in the page's world as a global. A name with a colon is a fragment from
// another package (jsParts).

//go:embed js/*.js
var jsFiles embed.FS

// jsParts are the fragments a script includes from outside package page.
var jsParts = map[string]string{
	"snapshot:errorwords": snapshot.JSErrorWords,
}

const includeMark = "// @include "

// script is the function in js/name, its includes expanded. A missing
// file is a build mistake: it panics when the package loads, so every
// test of the package finds it.
func script(name string) string {
	b, err := jsFiles.ReadFile("js/" + name)
	if err != nil {
		panic("page: script " + name + ": " + err.Error())
	}
	lines := strings.Split(string(b), "\n")
	i := 0
	for i < len(lines) {
		t := strings.TrimSpace(lines[i])
		if t != "" && (!strings.HasPrefix(t, "//") || strings.HasPrefix(t, includeMark)) {
			break
		}
		i++
	}
	var out strings.Builder
	for _, l := range lines[i:] {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, includeMark) {
			for _, inc := range strings.Fields(t[len(includeMark):]) {
				if p, ok := jsParts[inc]; ok {
					out.WriteString(p)
				} else {
					out.WriteString(script(inc))
				}
				out.WriteByte('\n')
			}
			continue
		}
		out.WriteString(l)
		out.WriteByte('\n')
	}
	return strings.TrimRight(out.String(), "\n")
}
