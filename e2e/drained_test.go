package e2e

import (
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// TestSiteDrained: drained returns only once a request whose sender went
// away (its connection closed as a dead browser's is) has been served,
// however slow its handler: a post counted after drained is every post
// that reached the site.
func TestSiteDrained(t *testing.T) {
	s := newSite(t, "127.0.0.1")
	var served atomic.Int32
	s.handle("/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		served.Add(1)
		w.WriteHeader(http.StatusNoContent)
	})
	for range 3 {
		c, err := net.Dial("tcp", s.URL[len("http://"):])
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx")
		c.Close()
	}
	s.drained(t)
	if n := served.Load(); n != 3 {
		t.Errorf("%d requests served when drained returned, want 3", n)
	}
}
