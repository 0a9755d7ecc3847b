package main

import (
	"encoding/json"
	"io/fs"
	"os"

	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/internal/proc"
)

// daemonState is what the files of a data directory say about the daemon
// serving it, read without taking anything: no lock, no connection.
type daemonState struct {
	DataDir    string `json:"data_dir"`
	Running    bool   `json:"running"`          // the lock names a pid that is alive
	PID        int    `json:"pid,omitempty"`    // from lyrad.lock
	Stale      bool   `json:"stale,omitempty"`  // the lock names a pid that is gone (the daemon was killed)
	Socket     string `json:"socket,omitempty"` // present while a daemon serves
	HTTP       string `json:"http,omitempty"`   // from http.json, when the daemon serves --http
	BrowserPID int    `json:"browser_pid,omitempty"`
	Browser    bool   `json:"browser_running"` // browser.pid names a live process
}

func readDaemonState(d datadir.Dir) daemonState {
	s := daemonState{DataDir: d.Root()}
	if pid := d.DaemonHolder(); pid > 0 {
		s.PID = pid
		s.Running = proc.Alive(pid)
		s.Stale = !s.Running
	}
	if fi, err := os.Stat(d.Socket()); err == nil && fi.Mode()&fs.ModeSocket != 0 && s.Running {
		s.Socket = d.Socket()
	}
	if u, err := d.ReadEndpoint(); err == nil && s.Running {
		s.HTTP = u
	}
	if b, err := os.ReadFile(d.BrowserPID()); err == nil {
		var rec struct {
			PID int `json:"pid"`
		}
		if json.Unmarshal(b, &rec) == nil && rec.PID > 0 {
			s.BrowserPID = rec.PID
			s.Browser = proc.Alive(rec.PID)
		}
	}
	return s
}
