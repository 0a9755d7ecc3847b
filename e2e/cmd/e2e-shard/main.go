// Command e2e-shard prints a -run/-skip pattern naming the end-to-end tests
// that run side by side (those whose body calls parallel(t)), so `task test`
// can run them in one process beside the one-at-a-time tests in another.
//
// Go runs a package's serial tests first and its parallel tests after, so in
// one process the serial phase (seven minutes, one browser at a time) leaves
// a core idle. Two processes of the same test binary overlap the phases.
//
//	go test -run "$(go run ./e2e/cmd/e2e-shard)" ./e2e    # the side-by-side tests
//	go test -skip "$(go run ./e2e/cmd/e2e-shard)" ./e2e   # the others
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	dir := flag.String("dir", "e2e", "the end-to-end tests' package directory")
	flag.Parse()
	names, err := parallelTests(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e-shard:", err)
		os.Exit(1)
	}
	if len(names) == 0 {
		fmt.Fprintf(os.Stderr, "e2e-shard: no test in %s calls parallel(t)\n", *dir)
		os.Exit(1)
	}
	fmt.Println(pattern(names))
}

// pattern matches exactly the named top-level tests (and so their subtests).
func pattern(names []string) string {
	return "^(" + strings.Join(names, "|") + ")$"
}

// parallelTests lists, sorted, the Test functions of dir's _test.go files
// whose body calls parallel(t) as a statement of its own.
func parallelTests(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no _test.go file in %s", dir)
	}
	fset := token.NewFileSet()
	var names []string
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == "TestMain" {
				continue
			}
			if callsParallel(fn.Body) {
				names = append(names, fn.Name.Name)
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

// callsParallel: one of the body's top-level statements is parallel(t).
// Only the top level counts: parallel(t) in a subtest makes the subtest,
// not the test, run side by side.
func callsParallel(body *ast.BlockStmt) bool {
	for _, st := range body.List {
		es, ok := st.(*ast.ExprStmt)
		if !ok {
			continue
		}
		call, ok := es.X.(*ast.CallExpr)
		if !ok {
			continue
		}
		if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "parallel" {
			return true
		}
	}
	return false
}
