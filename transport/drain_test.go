package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAnswerBeforeEOF: requests written before the client closed its
// input are all answered, a slow one and one that asks the client a
// question (which can no longer be answered: it is answered for it) among
// them; then the session ends.
func TestAnswerBeforeEOF(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "slow", InputSchema: jsonObject}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		time.Sleep(200 * time.Millisecond)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slept"}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: jsonObject}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		time.Sleep(100 * time.Millisecond) // after the EOF
		_, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "ok?", RequestedSchema: jsonObject})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "asked: " + errText(err)}}}, nil
	})
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
	}, "\n") + "\n"
	pr, pw := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		s := &Server{Server: srv}
		done <- s.ServeStream(ctx, &mcp.IOTransport{Reader: io.NopCloser(strings.NewReader(in)), Writer: pw})
		pw.Close()
	}()
	answered := map[float64]string{}
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		var m struct {
			ID     *float64        `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		json.Unmarshal(sc.Bytes(), &m)
		if m.ID != nil && m.Method == "" {
			answered[*m.ID] = string(m.Result)
		}
	}
	<-done
	t.Logf("the question after EOF: %s", answered[3])
	for _, id := range []float64{1, 2, 3, 4} {
		if _, ok := answered[id]; !ok {
			t.Errorf("request %v not answered; answers: %v", id, answered)
		}
	}
	if !strings.Contains(answered[3], "asked: ") || strings.Contains(answered[3], "asked: nil") {
		t.Errorf("the question after EOF: %s, want its error", answered[3])
	}
}

var jsonObject = map[string]any{"type": "object"}

func errText(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
