package chrome

import (
	"strings"
	"testing"
)

// The line Chromium 156 wrote when a 40 MiB zero-filled upload did not fit,
// fed in pieces that split it anywhere, between other log lines.
func TestDropWatcher(t *testing.T) {
	log := "[6878:6878:1201/042711.943580:ERROR:dbus/object_proxy.cc:572] Failed to call method\n" +
		"[6878:7023:1201/042720.896662:ERROR:net/server/http_connection.cc:119] Too large write data is pending: size=307583886, max_buffer_size=268435456\n" +
		strings.Repeat("x", 3000) + "\n" +
		"[1:2:3:ERROR:net/server/http_connection.cc:119] Too large write data is pending: size=, max_buffer_size=268435456\n" +
		"Too large write data is pending: size=5"
	for _, step := range []int{1, 7, 100, len(log)} {
		var got []int64
		w := &dropWatcher{onDrop: func(n int64) { got = append(got, n) }}
		for i := 0; i < len(log); i += step {
			if n, err := w.Write([]byte(log[i:min(i+step, len(log))])); err != nil || n != min(step, len(log)-i) {
				t.Fatalf("write: %d, %v", n, err)
			}
		}
		// The unterminated last line is not reported until its end comes.
		if len(got) != 2 || got[0] != 307583886 || got[1] != -1 {
			t.Fatalf("step %d: drops %v", step, got)
		}
	}
}
