package audit

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func appendRaw(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func seqs(rows []map[string]any) []int {
	var out []int
	for _, r := range rows {
		out = append(out, int(r["args"].(map[string]any)["seq"].(float64)))
	}
	return out
}

func TestTornAndGarbage(t *testing.T) {
	l := openTemp(t)
	w := func(i int) {
		if err := l.Write(Row{Kind: "tool", Args: map[string]any{"seq": i}}); err != nil {
			t.Fatal(err)
		}
	}
	w(0)
	w(1)
	appendRaw(t, l.Path(), "this is not json\n{\"kind\":\"tool\",\"args\":{\"se\n\n[1,2]\nnull\n")
	w(2)
	// A torn final line: half of a real row, no newline.
	appendRaw(t, l.Path(), `{"ts":"2026-01-01T00:00:00Z","kind":"tool","args":{"seq":9`)

	rows, err := ReadAll(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(seqs(rows)); got != "[0 1 2]" {
		t.Fatalf("ReadAll seqs %s", got)
	}
	for n, want := range map[int]string{1: "[2]", 2: "[1 2]", 3: "[0 1 2]", 100: "[0 1 2]"} {
		rows, err := Tail(l.Path(), n)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(seqs(rows)); got != want {
			t.Errorf("Tail(%d) = %s, want %s", n, got, want)
		}
	}
	// A complete object without its newline is still treated as torn: a
	// writer may be mid-write.
	appendRaw(t, l.Path(), "\n"+`{"kind":"tool","args":{"seq":7}}`)
	if rows, _ := Tail(l.Path(), 1); fmt.Sprint(seqs(rows)) != "[2]" {
		t.Errorf("unterminated complete line returned: %v", rows)
	}
}

// TestTailMatchesReadAll compares Tail against ReadAll on random files with
// debris, using tiny chunks so lines straddle many reads.
func TestTailMatchesReadAll(t *testing.T) {
	defer func(c int) { tailChunk = c }(tailChunk)
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 200 {
		tailChunk = 1 + r.IntN(40)
		path := filepath.Join(t.TempDir(), "a.jsonl")
		var b strings.Builder
		rows := r.IntN(12)
		for i := range rows {
			switch r.IntN(5) {
			case 0:
				b.WriteString("garbage\n")
			case 1:
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, `{"kind":"tool","args":{"seq":%d,"pad":%q}}`+"\n", i, strings.Repeat("p", r.IntN(100)))
		}
		if r.IntN(2) == 0 {
			b.WriteString(`{"kind":"tool","args":{"seq":99`)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		all, err := ReadAll(path)
		if err != nil || len(all) != rows {
			t.Fatalf("iter %d: ReadAll %d rows, want %d (%v)", iter, len(all), rows, err)
		}
		for n := range rows + 2 {
			got, err := Tail(path, n)
			if err != nil {
				t.Fatal(err)
			}
			want := all[max(0, len(all)-n):]
			if n == 0 {
				want = nil
			}
			if fmt.Sprint(seqs(got)) != fmt.Sprint(seqs(want)) {
				t.Fatalf("iter %d chunk %d: Tail(%d) = %v, want %v", iter, tailChunk, n, seqs(got), seqs(want))
			}
		}
	}
}

func TestReadMissing(t *testing.T) {
	if _, err := ReadAll(filepath.Join(t.TempDir(), "nope")); !os.IsNotExist(err) {
		t.Error(err)
	}
	if _, err := Tail(filepath.Join(t.TempDir(), "nope"), 3); !os.IsNotExist(err) {
		t.Error(err)
	}
}
