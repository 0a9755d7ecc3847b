package doctor

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procRoot is where the process table is read; tests may point it elsewhere.
var procRoot = "/proc"

// Listener is one listening TCP socket of a process, as the kernel lists it
// in /proc/<pid>/net/tcp{,6}: what any scanner on the machine sees, with no
// help from the process itself.
type Listener struct {
	Addr  netip.AddrPort // local address; IPv4-mapped IPv6 addresses are unmapped
	Inode uint64
	PID   int // the process holding it (0 when parsed from a bare table)
}

// tcpListen is the kernel's TCP_LISTEN state as printed in /proc/net/tcp.
const tcpListen = "0A"

// parseNetTCP reads a /proc/net/tcp or /proc/net/tcp6 table and returns its
// listening sockets. Addresses are printed as hex words in host byte order:
// 8 hex digits for IPv4, 32 (four words) for IPv6.
func parseNetTCP(r io.Reader) ([]Listener, error) {
	var out []Listener
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	first := true
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if first {
			first = false
			if len(f) > 0 && f[0] == "sl" {
				continue // the header
			}
		}
		if len(f) < 10 || f[3] != tcpListen {
			continue
		}
		ap, err := parseHexAddrPort(f[1])
		if err != nil {
			return nil, fmt.Errorf("local address %q: %w", f[1], err)
		}
		inode, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("inode %q: %w", f[9], err)
		}
		out = append(out, Listener{Addr: ap, Inode: inode})
	}
	return out, sc.Err()
}

func parseHexAddrPort(s string) (netip.AddrPort, error) {
	ipHex, portHex, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, errors.New("no port")
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	if err != nil {
		return netip.AddrPort{}, err
	}
	raw, err := hex.DecodeString(ipHex)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, errors.New("bad address")
	}
	// Each 32-bit word was printed as a host-order integer: read it back as
	// big-endian digits and store it in host order to get the wire bytes.
	b := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(b[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	addr, _ := netip.AddrFromSlice(b)
	return netip.AddrPortFrom(addr.Unmap(), uint16(port)), nil
}

// processFamily is pid, every descendant of it and, when pid leads a process
// group, every member of that group: a browser's helpers (zygote, network
// service, renderers) included.
func processFamily(pid int) ([]int, error) {
	if _, err := os.Stat(filepath.Join(procRoot, strconv.Itoa(pid))); err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	ents, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, err
	}
	type stat struct{ ppid, pgrp int }
	all := map[int]stat{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// "pid (comm) state ppid pgrp ...": comm may hold spaces and parens.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		all[p] = stat{ppid, pgrp}
	}
	in := map[int]bool{pid: true}
	for p, st := range all {
		if st.pgrp == pid {
			in[p] = true
		}
	}
	for grew := true; grew; {
		grew = false
		for p, st := range all {
			if !in[p] && in[st.ppid] {
				in[p] = true
				grew = true
			}
		}
	}
	out := make([]int, 0, len(in))
	for p := range in {
		out = append(out, p)
	}
	return out, nil
}

// socketInodes lists the socket inodes among a process's open descriptors.
func socketInodes(pid int) (map[uint64]bool, error) {
	dir := filepath.Join(procRoot, strconv.Itoa(pid), "fd")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[uint64]bool{}
	for _, e := range ents {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // closed meanwhile
		}
		if s, ok := strings.CutPrefix(link, "socket:["); ok {
			if n, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64); err == nil {
				out[n] = true
			}
		}
	}
	return out, nil
}

// Listeners finds, from the outside, every listening TCP socket held by pid
// and its family (see processFamily): the socket inodes in /proc/<p>/fd
// joined with the tables in /proc/<p>/net/tcp and tcp6, read once per
// network namespace.
func Listeners(pid int) ([]Listener, error) {
	fam, err := processFamily(pid)
	if err != nil {
		return nil, err
	}
	owner := map[uint64]int{}
	var rootErr error
	for _, p := range fam {
		inodes, err := socketInodes(p)
		if err != nil {
			if p == pid {
				rootErr = err
			}
			continue
		}
		for n := range inodes {
			owner[n] = p
		}
	}
	if rootErr != nil {
		return nil, fmt.Errorf("open descriptors of process %d: %w", pid, rootErr)
	}
	seenNS := map[string]bool{}
	seen := map[uint64]bool{}
	var out []Listener
	for _, p := range fam {
		base := filepath.Join(procRoot, strconv.Itoa(p))
		if ns, err := os.Readlink(filepath.Join(base, "ns", "net")); err == nil {
			if seenNS[ns] {
				continue
			}
			seenNS[ns] = true
		}
		for _, table := range []string{"tcp", "tcp6"} {
			f, err := os.Open(filepath.Join(base, "net", table))
			if err != nil {
				continue // no IPv6, or the process is gone
			}
			ls, err := parseNetTCP(f)
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name(), err)
			}
			for _, l := range ls {
				if who, ok := owner[l.Inode]; ok && !seen[l.Inode] {
					seen[l.Inode] = true
					l.PID = who
					out = append(out, l)
				}
			}
		}
	}
	return out, nil
}
