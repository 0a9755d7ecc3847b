package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listBudget is the most bytes the tools/list answer may put into an
// agent's context, before its first call (issue 19: 25 KB for the 29 lyra
// tools, about 0.86 KB a tool, from 40 KB in issue 12; Playwright MCP costs
// 0.8 KB a tool, chrome-devtools-mcp 0.9).
const listBudget = 25_000

// TestToolListFits keeps tools/list within its budget, measured as the
// server writes the answer to a go-sdk client. The long form of what the
// tools do is the lyrad://guide resource, read when needed.
func TestToolListFits(t *testing.T) {
	var wire bytes.Buffer
	s := mcp.NewServer(&mcp.Implementation{Name: "lyrad", Version: "test"}, nil)
	Register(s, Deps{})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, &mcp.LoggingTransport{Transport: st, Writer: &wire}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.NextCursor != "" {
		t.Fatal("tools/list is paged: measure every page")
	}
	for _, tl := range res.Tools {
		b, _ := json.Marshal(tl)
		t.Logf("%-22s %5d bytes", tl.Name, len(b))
	}
	// The transport logs a message after it has sent it: the client can
	// hold the answer before its line is written. Both ends are closed
	// (and the server's done) before the log is read.
	cs.Close()
	ss.Wait()
	size := 0
	sc := bufio.NewScanner(&wire)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "write: "); ok && strings.Contains(line, `"tools":[`) {
			size = len(line)
		}
	}
	if size == 0 {
		t.Fatal("no tools/list answer written")
	}
	t.Logf("tools/list: %d bytes for %d tools", size, len(res.Tools))
	if size > listBudget {
		t.Errorf("tools/list is %d bytes, over its budget of %d: shorten descriptions (the long form goes in README.md's Tools section, served as lyrad://guide) or trim schema texts", size, listBudget)
	}
}
