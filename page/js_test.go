package page

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every file in js/ loads, its includes expanded: no include line is left,
// and a file's own leading comment is not part of the script.
func TestScriptsLoad(t *testing.T) {
	names, err := fs.Glob(jsFiles, "js/*.js")
	if err != nil || len(names) == 0 {
		t.Fatalf("no scripts embedded: %v", err)
	}
	for _, n := range names {
		s := script(strings.TrimPrefix(n, "js/"))
		if strings.TrimSpace(s) == "" {
			t.Errorf("%s: empty", n)
		}
		if strings.Contains(s, includeMark) {
			t.Errorf("%s: an include was left unexpanded", n)
		}
	}
	if !strings.HasPrefix(jsLocate, "function(kind, sel) {") || !strings.Contains(jsLocate, "const find = (kind, sel) =>") ||
		!strings.Contains(jsLocate, "const nameOf = el =>") {
		t.Errorf("locate.js did not take its helpers:\n%.300s", jsLocate)
	}
	if !strings.Contains(inputWatch, "globalThis."+inputBindingName+";") {
		t.Error("input_watch.js does not call the binding by inputBindingName")
	}
	if !strings.Contains(jsReadForm, jsParts["snapshot:errorwords"]) {
		t.Error("form_helpers.js did not take snapshot's error words")
	}
}

// Package page keeps its scripts to itself: no exported constant or
// variable holds JavaScript. Callers ask for an operation instead.
func TestNoExportedScripts(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || (gd.Tok != token.CONST && gd.Tok != token.VAR) {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !id.IsExported() || i >= len(vs.Values) {
						continue
					}
					if strings.HasPrefix(id.Name, "JS") || holdsScript(vs.Values[i]) {
						t.Errorf("%s: %s is exported and holds a script", name, id.Name)
					}
				}
			}
		}
	}
}

// holdsScript: a string literal in e reads like JavaScript.
func holdsScript(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if l, ok := n.(*ast.BasicLit); ok && l.Kind == token.STRING {
			if s, err := strconv.Unquote(l.Value); err == nil && (strings.Contains(s, "function(") || strings.Contains(s, "=>")) {
				found = true
			}
		}
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "script" {
				found = true
			}
		}
		return true
	})
	return found
}
