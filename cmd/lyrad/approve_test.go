package main

import (
	"strings"
	"testing"
)

// lyrad approve takes exactly one of --list and an id (with --deny or
// not), before, between or after its flags; without a daemon it says so
// and exits 1.
func TestApproveArguments(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"approve"}, 2, "usage"},
		{[]string{"approve", "--list", "7QK2MP"}, 2, "usage"},
		{[]string{"approve", "--list", "--deny"}, 2, "usage"},
		{[]string{"approve", "7QK2MP", "8QK2MP"}, 2, "usage"},
		{[]string{"approve", "7QK2MP", "--data-dir", dir}, 1, "no lyrad daemon answers"},
		{[]string{"approve", "--data-dir", dir, "--deny", "7QK2MP"}, 1, "no lyrad daemon answers"},
		{[]string{"approve", "--data-dir", dir, "--list"}, 1, "no lyrad daemon answers"},
	} {
		var out, errb stringsBuilder
		if code := run(c.args, nil, &out, &errb); code != c.code || !strings.Contains(errb.String(), c.says) {
			t.Errorf("%v: exit %d, %q; want %d saying %q", c.args, code, errb.String(), c.code, c.says)
		}
	}
}

// The command a refusal names finds this data directory from a plain
// shell: --data-dir unless it is the default, quoted when it must be.
func TestApproveCommand(t *testing.T) {
	for _, c := range []struct{ dir, want string }{
		{"/tmp/d", "lyrad approve --data-dir /tmp/d"},
		{"/tmp/my dir/it's", `lyrad approve --data-dir '/tmp/my dir/it'\''s'`},
	} {
		if got := (&options{dataDir: c.dir}).approveCommand(); got != c.want {
			t.Errorf("%q: %q, want %q", c.dir, got, c.want)
		}
	}
}
