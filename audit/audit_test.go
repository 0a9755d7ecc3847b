package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

func openTemp(t testing.TB) *Log {
	t.Helper()
	l, err := Open(filepath.Join(t.TempDir(), "data", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestRoundTrip(t *testing.T) {
	l := openTemp(t)
	loc := time.FixedZone("X", 3600)
	ts := time.Date(2026, 1, 2, 3, 4, 5, 123456789, loc)
	d := 12.345
	err := l.Write(Row{
		Time: ts, Kind: "tool", Session: "s1", Tool: "navigate",
		Args:       map[string]any{"url": "https://example.com/", "password": "hunter2"},
		Status:     "ok",
		DurationMS: &d,
		URLBefore:  "https://bob:pw@a.example/",
		URLAfter:   "https://b.example/",
		Extra: map[string]any{
			"origin": "https://example.com", "verdict": "allow", "would_deny": false,
			"kind": "HIJACK", "ts": "HIJACK", "args": "HIJACK", // collisions: ignored
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(Row{Kind: "session"}); err != nil { // zero time gets stamped
		t.Fatal(err)
	}
	rows, err := ReadAll(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("got %d rows", len(rows))
	}
	r := rows[0]
	want := map[string]any{
		"ts": "2026-01-02T02:04:05.123456789Z", "kind": "tool", "session": "s1",
		"tool": "navigate", "status": "ok", "duration_ms": 12.345,
		"url_before": "https://a.example/", "url_after": "https://b.example/",
		"origin": "https://example.com", "verdict": "allow", "would_deny": false,
	}
	for k, v := range want {
		if r[k] != v {
			t.Errorf("%s = %#v, want %#v", k, r[k], v)
		}
	}
	args := r["args"].(map[string]any)
	if args["password"] != Redacted || args["url"] != "https://example.com/" {
		t.Errorf("args = %v", args)
	}
	if len(r) != len(want)+1 {
		t.Errorf("unexpected keys: %v", r)
	}
	ts2, err := time.Parse(time.RFC3339Nano, rows[1]["ts"].(string))
	if err != nil || ts2.Location() != time.UTC || time.Since(ts2) > time.Minute {
		t.Errorf("stamped ts = %v (%v)", rows[1]["ts"], err)
	}
	if _, ok := rows[1]["args"]; ok {
		t.Error("empty args should be omitted")
	}
}

func TestMarshalOrder(t *testing.T) {
	b, err := json.Marshal(Row{Time: time.Unix(0, 0).UTC(), Kind: "guard", Extra: map[string]any{"b": 1, "a": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != `{"ts":"1970-01-01T00:00:00Z","kind":"guard","a":"x","b":1}` {
		t.Fatal(got)
	}
}

func TestFileModeAndClose(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no unix modes")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	if err := os.WriteFile(path, nil, 0o644); err != nil { // pre-existing, too loose
		t.Fatal(err)
	}
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	fresh := filepath.Join(dir, "sub", "audit.jsonl")
	l2, err := Open(fresh)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	fi, _ = os.Stat(fresh)
	di, _ := os.Stat(filepath.Dir(fresh))
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Errorf("file %v dir %v", fi.Mode(), di.Mode())
	}

	if err := l.Write(Row{Kind: "tool"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Write(Row{Kind: "tool"}); !errors.Is(err, ErrClosed) {
		t.Errorf("write after close: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}

func TestNop(t *testing.T) {
	for _, l := range []*Log{Nop(), nil} {
		if err := l.Write(Row{Kind: "tool"}); err != nil {
			t.Fatal(err)
		}
		if l.Path() != "" || l.Sync() != nil || l.Close() != nil {
			t.Fatal("nop misbehaves")
		}
	}
	l := Nop()
	l.Close()
	if err := l.Write(Row{}); !errors.Is(err, ErrClosed) {
		t.Errorf("nop write after close: %v", err)
	}
}

func TestOversizedRow(t *testing.T) {
	l := openTemp(t)
	big := strings.Repeat("x", MaxRowBytes)
	if err := l.Write(Row{Kind: "tool", Args: map[string]any{"script": big}, Extra: map[string]any{"verdict": "allow"}}); err != nil {
		t.Fatal(err)
	}
	rows, _ := ReadAll(l.Path())
	if len(rows) != 1 || rows[0]["verdict"] != "allow" || rows[0]["args"].(map[string]any)["truncated_bytes"] == nil {
		t.Fatalf("%.200v", rows)
	}
}

func TestUnencodableValues(t *testing.T) {
	l := openTemp(t)
	err := l.Write(Row{Kind: "tool", Args: map[string]any{"ch": make(chan int), "f": func() {}}})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSince(t *testing.T) {
	d := Since(time.Now().Add(-1500 * time.Microsecond))
	if *d < 1.5 || *d > 1000 {
		t.Fatal(*d)
	}
	if s := strconv.FormatFloat(*d, 'f', -1, 64); len(s) > len(strings.Split(s, ".")[0])+4 {
		t.Fatalf("more than 3 decimals: %s", s)
	}
}

// payloadBase is random text that needs JSON escaping in places and holds
// multi-byte runes; payload slices it so the stress tests spend their time
// writing, not generating.
var payloadBase = func() string {
	r := rand.New(rand.NewPCG(7, 7))
	alpha := []rune("abcdefghij\"\\\n<>&é\t☃")
	var b strings.Builder
	for b.Len() < 128<<10 {
		b.WriteRune(alpha[r.IntN(len(alpha))])
	}
	return b.String()
}()

// payload returns about n bytes of payloadBase, cut on rune boundaries.
func payload(r *rand.Rand, n int) string {
	start := r.IntN(len(payloadBase) - n)
	end := start + n
	for !utf8.RuneStart(payloadBase[start]) {
		start++
	}
	for end < len(payloadBase) && !utf8.RuneStart(payloadBase[end]) {
		end--
	}
	return payloadBase[start:max(start, end)]
}

// checkRows asserts the file holds exactly want newline-terminated lines and
// that every one of them parses (ReadAll silently skips bad lines, so equal
// counts mean none was skipped), each intact and unique.
func checkRows(t *testing.T, path string, want int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte{'\n'}); n != want || data[len(data)-1] != '\n' {
		t.Fatalf("%d lines, want %d", n, want)
	}
	rows, err := ReadAll(path)
	if err != nil || len(rows) != want {
		t.Fatalf("ReadAll: %d rows, want %d (%v)", len(rows), want, err)
	}
	seen := map[string]bool{}
	for i, m := range rows {
		args := m["args"].(map[string]any)
		if n := len(args["blob"].(string)); float64(n) != args["len"].(float64) {
			t.Fatalf("row %d: blob len %d != %v", i, n, args["len"])
		}
		id := fmt.Sprint(args["writer"], "/", args["seq"])
		if seen[id] {
			t.Fatalf("duplicate row %s", id)
		}
		seen[id] = true
	}
	tail, err := Tail(path, 10)
	if err != nil || !reflect.DeepEqual(tail, rows[len(rows)-10:]) {
		t.Fatalf("Tail disagrees with ReadAll (%v)", err)
	}
}

func writeRows(l *Log, writer string, count int, size func(r *rand.Rand, i int) int) error {
	r := rand.New(rand.NewPCG(uint64(len(writer)), uint64(os.Getpid())))
	for i := range count {
		blob := payload(r, size(r, i))
		err := l.Write(Row{Kind: "tool", Tool: "evaluate", Args: map[string]any{
			"writer": writer, "seq": i, "blob": blob, "len": len(blob),
		}})
		if err != nil {
			return err
		}
	}
	return nil
}

func TestConcurrentGoroutines(t *testing.T) {
	const goroutines, perG = 8, 500
	// One file, so the check sees every line in it: rotation is tested on
	// its own.
	l, err := OpenWith(filepath.Join(t.TempDir(), "audit.jsonl"), Options{MaxFileBytes: 1 << 40, MaxTotalBytes: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			// Every 16th row is large (up to 64 KB); the rest are small, so
			// the file stays ~15 MB while still mixing sizes.
			errs <- writeRows(l, "g"+strconv.Itoa(g), perG, func(r *rand.Rand, i int) int {
				if i%16 == 0 {
					return r.IntN(64 << 10)
				}
				return r.IntN(4 << 10)
			})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	checkRows(t, l.Path(), goroutines*perG)
}

const helperEnv = "LYRAD_AUDIT_HELPER_PATH"

// TestHelperProcess is not a real test: TestConcurrentProcesses re-executes
// the test binary with helperEnv set, and this writes rows as a child.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process only")
	}
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := writeRows(l, "p"+os.Getenv(helperEnv+"_ID"), 250, func(r *rand.Rand, _ int) int {
		return 9<<10 + r.IntN(2<<10)
	}); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentProcesses(t *testing.T) {
	if os.Getenv(helperEnv) != "" {
		return
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for i := range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+path, helperEnv+"_ID="+strconv.Itoa(i))
		out := new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = out, out
		outs = append(outs, out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s", i, err, outs[i])
		}
	}
	checkRows(t, path, 1000)
}

func BenchmarkWrite(b *testing.B) {
	l := openTemp(b)
	row := Row{Kind: "tool", Session: "s", Tool: "click", Status: "ok",
		Args:  map[string]any{"selector": "#submit", "text": "secret", "url": "https://example.com/"},
		Extra: map[string]any{"origin": "https://example.com", "verdict": "allow"}}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := l.Write(row); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A crash mid-write leaves a torn last line; the next run's first row must
// start a line of its own and read back.
func TestOpenEndsTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	l.Write(Row{Kind: "before"})
	l.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"ts":"2026-12-02T00:00:00Z","kind":"torn","ar`)
	f.Close()
	l, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	l.Write(Row{Kind: "after"})
	l.Write(Row{Kind: "later"})
	l.Close()
	rows, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range rows {
		kinds = append(kinds, r["kind"].(string))
	}
	if strings.Join(kinds, ",") != "before,after,later" {
		t.Fatalf("rows read back: %v, want before,after,later", kinds)
	}
	tail, _ := Tail(path, 2)
	if len(tail) != 2 || tail[0]["kind"] != "after" {
		t.Fatalf("Tail: %v", tail)
	}
}

func TestRotationAndCap(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	const maxFile, maxTotal = 10 << 10, 40 << 10
	l, err := OpenWith(path, Options{MaxFileBytes: maxFile, MaxTotalBytes: maxTotal})
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	pad := strings.Repeat("x", 200)
	for i := range n {
		if err := l.Write(Row{Kind: "tool", Status: "ok", Extra: map[string]any{"i": i, "pad": pad}}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	var total int64
	files := append([]string{path}, Rotated(path)...)
	for _, p := range files {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > maxFile {
			t.Errorf("%s is %d bytes, over %d", p, fi.Size(), maxFile)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v", p, fi.Mode().Perm())
		}
		total += fi.Size()
	}
	if total > maxTotal {
		t.Errorf("%d files hold %d bytes, over the cap %d", len(files), total, maxTotal)
	}
	if len(files) < 3 {
		t.Fatalf("only %d files: no rotation", len(files))
	}
	rows, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	// Rows read back in order, across files, ending with the last written;
	// the dropped ones are said in rows of their own.
	last, dropped := -1, 0
	for _, r := range rows {
		if r["kind"] == "audit" && r["status"] == "dropped" {
			dropped++
			continue
		}
		i := int(r["i"].(float64))
		if i <= last {
			t.Fatalf("row %d after %d", i, last)
		}
		last = i
	}
	if last != n-1 || dropped == 0 {
		t.Fatalf("last row %d (want %d), %d dropped rows", last, n-1, dropped)
	}
	tail, err := Tail(path, 60) // more than one file holds
	if err != nil || len(tail) != 60 {
		t.Fatalf("Tail: %d rows, %v", len(tail), err)
	}
	if i := tail[59]["i"].(float64); i != n-1 {
		t.Fatalf("Tail ends at %v", i)
	}
	// Reopening continues the current file's size count.
	l, _ = OpenWith(path, Options{MaxFileBytes: maxFile, MaxTotalBytes: maxTotal})
	for range 100 {
		l.Write(Row{Kind: "tool", Extra: map[string]any{"pad": pad}})
	}
	l.Close()
	if fi, _ := os.Stat(path); fi.Size() > maxFile {
		t.Errorf("after reopening, %d bytes", fi.Size())
	}
}

// TestEncodeWriteLine: a line's Len is what it takes in the file, and
// WriteLine writes it as Write would the row (redacted).
func TestEncodeWriteLine(t *testing.T) {
	l := openTemp(t)
	r := Row{Kind: "guard", Status: "deny", Extra: map[string]any{"request_url": "https://u:pw@example.com/a?token=abc"}}
	ln, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.WriteLine(ln); err != nil {
		t.Fatal(err)
	}
	if err := l.Write(r); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if len(lines[0]) != ln.Len() || strings.Contains(lines[0], "pw@") || strings.Contains(lines[0], "abc") {
		t.Errorf("line %q, Len %d", lines[0], ln.Len())
	}
	// The same row but for its time stamp (whose nanoseconds are
	// written without trailing zeros, so its length varies).
	stamp := regexp.MustCompile(`"ts":"[^"]*"`)
	if stamp.ReplaceAllString(lines[1], "") != stamp.ReplaceAllString(lines[0], "") {
		t.Errorf("Write wrote %q, WriteLine %q", lines[1], lines[0])
	}
	l.Close()
	if err := l.WriteLine(ln); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	if err := Nop().WriteLine(ln); err != nil {
		t.Error(err)
	}
}
