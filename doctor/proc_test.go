package doctor

import (
	"encoding/binary"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Tables as a little-endian kernel prints them.
const tcpTable = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0000000000000000 100 0 0 10 0
   1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1002 1 0000000000000000 100 0 0 10 0
   2: 0100007F:B441 0100007F:DBA2 06 00000000:00000000 03:00000660 00000000     0        0 0 3 0000000000000000
   3: 0100007F:9C40 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 1003 1 0000000000000000 20 4 30 10 -1
   4: 0200007F:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1004 1 0000000000000000 100 0 0 10 0
`

const tcp6Table = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2001 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000001000000:1F92 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2002 1 0000000000000000 100 0 0 10 0
   2: 0000000000000000FFFF00000100007F:1F93 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2003 1 0000000000000000 100 0 0 10 0
`

func littleEndian(t *testing.T) {
	t.Helper()
	var b [2]byte
	binary.NativeEndian.PutUint16(b[:], 1)
	if b[0] != 1 {
		t.Skip("the synthetic tables are in little-endian host order")
	}
}

func TestParseNetTCP(t *testing.T) {
	littleEndian(t)
	ls, err := parseNetTCP(strings.NewReader(tcpTable))
	if err != nil {
		t.Fatal(err)
	}
	want := []Listener{
		{Addr: netip.MustParseAddrPort("127.0.0.1:8080"), Inode: 1001},
		{Addr: netip.MustParseAddrPort("0.0.0.0:22"), Inode: 1002},
		{Addr: netip.MustParseAddrPort("127.0.0.2:80"), Inode: 1004},
	}
	if len(ls) != len(want) {
		t.Fatalf("got %v, want %v (only LISTEN rows)", ls, want)
	}
	for i := range want {
		if ls[i] != want[i] {
			t.Errorf("row %d = %v, want %v", i, ls[i], want[i])
		}
	}

	ls, err = parseNetTCP(strings.NewReader(tcp6Table))
	if err != nil {
		t.Fatal(err)
	}
	want = []Listener{
		{Addr: netip.MustParseAddrPort("[::]:8081"), Inode: 2001},
		{Addr: netip.MustParseAddrPort("[::1]:8082"), Inode: 2002},
		{Addr: netip.MustParseAddrPort("127.0.0.1:8083"), Inode: 2003}, // ::ffff:127.0.0.1, unmapped
	}
	if len(ls) != len(want) {
		t.Fatalf("got %v, want %v", ls, want)
	}
	for i := range want {
		if ls[i] != want[i] {
			t.Errorf("row %d = %v, want %v", i, ls[i], want[i])
		}
	}

	if _, err := parseNetTCP(strings.NewReader("  0: ZZ:1F90 00000000:0000 0A 0 0 0 0 0 1 1\n")); err == nil {
		t.Error("a malformed address was accepted")
	}
}

func TestJudgeListeners(t *testing.T) {
	littleEndian(t)
	v4, _ := parseNetTCP(strings.NewReader(tcpTable))
	v6, _ := parseNetTCP(strings.NewReader(tcp6Table))
	c := judgeListeners(append(v4, v6...))
	if c.Status != Fail {
		t.Fatalf("status = %s, want FAIL: %s", c.Status, c.Detail)
	}
	for _, s := range []string{"0.0.0.0 (every IPv4 interface)", ":: (every interface)", "listens on ::1", "listens on 127.0.0.2"} {
		if !strings.Contains(c.Detail, s) {
			t.Errorf("detail lacks %q: %s", s, c.Detail)
		}
	}
	for _, port := range []string{"8080", "8081", "8082", "22"} {
		if strings.Contains(c.Detail, port) {
			t.Errorf("detail names port %s: %s", port, c.Detail)
		}
	}
	if c.Fix == "" {
		t.Error("no fix")
	}
	if c := judgeListeners(nil); c.Status != Pass {
		t.Errorf("no listeners: %s %s", c.Status, c.Detail)
	}
}

// fakeProc builds a /proc with pid 100 (browser), 101 (its child), 102 (a
// member of its group, reparented) and 200 (a stranger). Each holds one
// listening socket; the stranger's must not be reported.
func fakeProc(t *testing.T) string {
	t.Helper()
	littleEndian(t)
	root := t.TempDir()
	proc := func(pid, ppid, pgrp int, inodes ...int) {
		d := filepath.Join(root, strconv.Itoa(pid))
		if err := os.MkdirAll(filepath.Join(d, "fd"), 0o755); err != nil {
			t.Fatal(err)
		}
		stat := strconv.Itoa(pid) + " (chro me) (x) S " + strconv.Itoa(ppid) + " " + strconv.Itoa(pgrp) + " 0 0 0\n"
		if err := os.WriteFile(filepath.Join(d, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Symlink("/dev/null", filepath.Join(d, "fd", "0"))
		os.Symlink("pipe:[77]", filepath.Join(d, "fd", "1"))
		for i, n := range inodes {
			os.Symlink("socket:["+strconv.Itoa(n)+"]", filepath.Join(d, "fd", strconv.Itoa(3+i)))
		}
		os.MkdirAll(filepath.Join(d, "net"), 0o755)
		os.WriteFile(filepath.Join(d, "net", "tcp"), []byte(tcpTable), 0o644)
		os.WriteFile(filepath.Join(d, "net", "tcp6"), []byte(tcp6Table), 0o644)
	}
	proc(100, 1, 100, 1001)
	proc(101, 100, 100, 2002, 999) // 999: a socket that is not listening
	proc(102, 1, 100, 2003)
	proc(200, 1, 200, 1002)
	os.WriteFile(filepath.Join(root, "self"), nil, 0o644)
	return root
}

func TestListenersFromProc(t *testing.T) {
	old := procRoot
	procRoot = fakeProc(t)
	defer func() { procRoot = old }()

	ls, err := Listeners(100)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 3 {
		t.Errorf("listeners = %v, want 3 (each once)", ls)
	}
	got := map[uint64]int{}
	for _, l := range ls {
		got[l.Inode] = l.PID
	}
	want := map[uint64]int{1001: 100, 2002: 101, 2003: 102}
	if len(got) != len(want) {
		t.Fatalf("listeners = %v, want inodes %v", ls, want)
	}
	for n, pid := range want {
		if got[n] != pid {
			t.Errorf("inode %d held by %d, want %d", n, got[n], pid)
		}
	}
	c := CheckListeners(100)
	if c.Status != Fail || !strings.Contains(c.Detail, "pid 101 listens on ::1") {
		t.Errorf("CheckListeners(100) = %s %s", c.Status, c.Detail)
	}
	if _, err := Listeners(4242); err == nil {
		t.Error("a missing process was not an error")
	}
}

// The real /proc: this test process as the one under scrutiny.
func TestCheckListenersLive(t *testing.T) {
	if !procAvailable() {
		t.Skip("no /proc")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c := CheckListeners(os.Getpid())
	if c.Status != Pass {
		t.Fatalf("loopback listener: %s %s", c.Status, c.Detail)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	if strings.Contains(c.Detail, port) {
		t.Errorf("detail names the port: %s", c.Detail)
	}

	wild, err := net.Listen("tcp4", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer wild.Close()
	c = CheckListeners(os.Getpid())
	if c.Status != Fail || !strings.Contains(c.Detail, "0.0.0.0") {
		t.Fatalf("wildcard listener: %s %s", c.Status, c.Detail)
	}
}
