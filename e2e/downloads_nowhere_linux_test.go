//go:build linux

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// watchCreates records, with inotify, every name created in or moved into
// dirs until stop: Chrome's temporary copy of a download lives for
// milliseconds, so only the kernel sees every one.
func watchCreates(t *testing.T, dirs ...string) (stop func() []string) {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	wds := map[int32]string{}
	for _, d := range dirs {
		wd, err := syscall.InotifyAddWatch(fd, d, syscall.IN_CREATE|syscall.IN_MOVED_TO)
		if err != nil {
			t.Fatalf("inotify watch %s: %v", d, err)
		}
		wds[int32(wd)] = d
	}
	var mu sync.Mutex
	var seen []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			n, err := syscall.Read(fd, buf)
			if err != nil || n <= 0 {
				return
			}
			for off := 0; off+syscall.SizeofInotifyEvent <= n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
				name = bytes.TrimRight(name, "\x00")
				if ev.Mask&syscall.IN_IGNORED != 0 {
					off += syscall.SizeofInotifyEvent + int(ev.Len)
					continue
				}
				if ev.Mask&syscall.IN_Q_OVERFLOW != 0 {
					name = []byte("(inotify queue overflow)")
				}
				mu.Lock()
				seen = append(seen, filepath.Join(wds[ev.Wd], string(name)))
				mu.Unlock()
				off += syscall.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}()
	return func() []string {
		for wd := range wds {
			syscall.InotifyRmWatch(fd, uint32(wd))
		}
		// Removing the watches queues IN_IGNORED; the read then sees it,
		// and closing ends the reader.
		time.Sleep(100 * time.Millisecond)
		syscall.Close(fd)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for _, s := range seen {
			if filepath.Base(s) != "." && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
}

// TestDownloadsNothingOutside: for the whole download scenario (an
// undeclared <a download>, an undeclared blob, a burst of four, a declared
// download, a 32 MiB blob offered four times, and the same in observe
// mode) not one file is created in the user's ~/Downloads or in the
// TMPDIR lyrad was started with: the browser stages its copies in its
// private temporary directory and lyrad's incoming folder, inside the data
// dir.
func TestDownloadsNothingOutside(t *testing.T) {
	needBrowser(t)
	s := downloadSite(t)
	s.page("/many", `<!doctype html><title>Many</title><button id=go onclick="many()">go</button>
<script>function many(){for(let i=0;i<4;i++){const a=document.createElement('a');a.href='/file?i='+i+'&token=`+dlSecret+`';a.download='evil.bin';document.body.append(a);a.click()}}</script>`)
	s.page("/big", `<!doctype html><title>Big</title><button id=big onclick="big()">big</button>
<script>function big(){const b=new Blob([new Uint8Array(32<<20).fill(65)]);for(let i=0;i<4;i++){const a=document.createElement('a');a.href=URL.createObjectURL(b);a.download='big'+i+'.bin';document.body.append(a);a.click()}}</script>`)
	home, tmp, env := dlEnv(t)
	downloads := filepath.Join(home, "Downloads")
	if err := os.Mkdir(downloads, 0o700); err != nil {
		t.Fatal(err)
	}
	stop := watchCreates(t, downloads, tmp)
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()

	run := func(observe bool) {
		dir := t.TempDir()
		e := env
		if observe {
			e = append(append([]string(nil), env...), "LYRA_BROWSER_ENFORCEMENT=observe")
		}
		cs := connectStdio(t, dir, proto2026, e...)
		defer cs.Close()
		status := "blocked"
		if observe {
			status = "would_block"
		}
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
		call(t, cs, "click", map[string]any{"selector": "#dl"})
		waitDownloadRows(t, dir, status, 1)
		call(t, cs, "click", map[string]any{"selector": "#blob"})
		waitDownloadRows(t, dir, status, 2)
		if !observe {
			wantStatus(t, call(t, cs, "click", map[string]any{"selector": "#dl", "download": true}), "ok")
		}
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/many"}), "ok")
		// The burst: Chrome's download limiter may drop some of four
		// automatic downloads in a tab that already downloaded, before they
		// start (served, never a download event), so neither four rows nor a
		// row for each one served can be waited for. This only paces the
		// scenario (the watch runs to the end): wait until the site served
		// the burst and nothing more came for 2 s.
		before := s.count("/file")
		call(t, cs, "click", map[string]any{"selector": "#go"})
		last, quiet := "", time.Now()
		waitFor(t, "the burst served and settled", 60*time.Second, func() bool {
			n := s.count("/file") - before
			now := fmt.Sprintf("served %d, %d download rows", n, len(downloadRows(t, dir, status)))
			if now != last {
				last, quiet = now, time.Now()
			}
			return n >= 1 && time.Since(quiet) >= 2*time.Second
		})
		t.Logf("burst (observe %v): %s", observe, last)
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/big"}), "ok")
		call(t, cs, "click", map[string]any{"selector": "#big"})
		waitFor(t, "the four big blobs judged", 60*time.Second, func() bool {
			n := 0
			for _, r := range auditRows(t, dir) {
				if f, _ := r["filename"].(string); r["kind"] == "download" && len(f) > 3 && f[:3] == "big" {
					n++
				}
			}
			return n >= 4
		})
		time.Sleep(time.Second) // a straggler, if one were coming
	}
	run(false)
	run(true)
	stopped = true
	seen := stop()
	t.Logf("files created in ~/Downloads and $TMPDIR during the scenario: %d %v", len(seen), seen)
	if len(seen) != 0 {
		t.Errorf("%d files were created outside the data dir: %v", len(seen), seen)
	}
}
