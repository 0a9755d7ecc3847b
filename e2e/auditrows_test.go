package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lyrad/lyrad/audit"
)

// auditRows reads the data dir's audit trail.
func auditRows(t *testing.T, dataDir string) []map[string]any {
	t.Helper()
	rows, err := audit.ReadAll(filepath.Join(dataDir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// has is what an audit row must hold: for each key the value (numbers as
// float64, as JSON decodes them), or a func(any) bool the value must
// satisfy (pathEnds, urlHas, present).
type has map[string]any

// rowsWhere is the end-to-end tests' one audit filter: the rows that hold
// all of want.
func rowsWhere(rows []map[string]any, want has) []map[string]any {
	var out []map[string]any
	for _, r := range rows {
		if want.match(r) {
			out = append(out, r)
		}
	}
	return out
}

func (h has) match(r map[string]any) bool {
	for k, v := range h {
		if f, ok := v.(func(any) bool); ok {
			if !f(r[k]) {
				return false
			}
		} else if r[k] != v {
			return false
		}
	}
	return true
}

// pathEnds: a URL whose path (query and fragment cut off) ends with p.
func pathEnds(p string) func(any) bool {
	return func(v any) bool {
		u, ok := v.(string)
		if i := strings.IndexAny(u, "?#"); i >= 0 {
			u = u[:i]
		}
		return ok && strings.HasSuffix(u, p)
	}
}

// urlHas: a URL holding s anywhere, its query included ("/pop?n=").
func urlHas(s string) func(any) bool {
	return func(v any) bool {
		u, ok := v.(string)
		return ok && strings.Contains(u, s)
	}
}

// present: the row has the field, with a value.
func present(v any) bool { return v != nil }

// guardRows are the rows of requests the guard judged whose URL path ends
// with path.
func guardRows(rows []map[string]any, path string) []map[string]any {
	return rowsWhere(rows, has{"kind": "guard", "request_url": pathEnds(path)})
}

// refusals are the guard's refusals in dataDir of requests whose URL path
// ends with path.
func refusals(t *testing.T, dataDir, path string) []map[string]any {
	t.Helper()
	return rowsWhere(auditRows(t, dataDir), has{"kind": "guard", "verdict": "deny", "request_url": pathEnds(path)})
}

// TestRowsWhere: the filter every audit check goes through matches values,
// predicates, and paths with their query cut off, and nothing else.
func TestRowsWhere(t *testing.T) {
	rows := []map[string]any{
		{"kind": "guard", "verdict": "deny", "request_url": "http://127.0.0.1:1/post?x=1"},
		{"kind": "guard", "verdict": "allow", "request_url": "http://127.0.0.1:1/post"},
		{"kind": "guard", "verdict": "deny", "request_url": "http://127.0.0.1:1/posts"},
		{"kind": "consent", "pid": float64(7), "redirect_from": nil},
	}
	for name, c := range map[string]struct {
		want has
		n    int
	}{
		"value and path":   {has{"kind": "guard", "verdict": "deny", "request_url": pathEnds("/post")}, 1},
		"path alone":       {has{"request_url": pathEnds("/post")}, 2},
		"url with a query": {has{"request_url": urlHas("/post?")}, 1},
		"a number":         {has{"pid": float64(7)}, 1},
		"present":          {has{"redirect_from": present}, 0},
		"nothing asked":    {has{}, 4},
	} {
		if got := len(rowsWhere(rows, c.want)); got != c.n {
			t.Errorf("%s: %d rows, want %d", name, got, c.n)
		}
	}
}
