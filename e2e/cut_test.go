package e2e

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lyrad/lyrad/internal/testenv"
)

// Cutting lyrad's CDP connection from the outside, as a crash of the socket
// would: the tests that show the browser dies with its guard.

// needSS: ss (iproute2) finds the browser's debugging port and cuts the
// connection (ss -K), under the harness's rule (fails in CI when missing).
func needSS(t *testing.T) {
	t.Helper()
	testenv.Tool(t, "ss", "(iproute2) to cut the socket")
}

var ssPid = regexp.MustCompile(`127\.0\.0\.1:(\d+)\s.*pid=(\d+),`)

// debugPort finds, from the outside, the port the browser process listens on.
func debugPort(t *testing.T, pid int) int {
	t.Helper()
	out, err := exec.Command("ss", "-Htlnp").Output()
	if err != nil {
		t.Fatalf("ss: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if m := ssPid.FindStringSubmatch(line); m != nil && m[2] == strconv.Itoa(pid) {
			p, _ := strconv.Atoi(m[1])
			return p
		}
	}
	t.Fatalf("no listening port for browser pid %d in:\n%s", pid, out)
	return 0
}

// cutSocket kills every TCP connection to the browser's debugging port,
// which is lyrad's CDP connection.
func cutSocket(t *testing.T, port int) {
	t.Helper()
	out, err := exec.Command("ss", "-K", "dst", "127.0.0.1", "dport", "=", strconv.Itoa(port)).CombinedOutput()
	if err != nil {
		t.Fatalf("ss -K: %v %s", err, out)
	}
}
