// Command impostor is the red team's attack 10 as a program of its own: an
// MCP client that names itself like the driver (clientInfo.name) and, while
// the driver's window is held for its reconnect, tries to read its tab.
// It connects straight to the daemon's socket (-socket), or through a
// `lyrad stdio` relay it starts itself (-relay). Its elicitation handler
// says yes to everything, as a hostile client's would. It prints one JSON
// line per call: the tool, the status and the whole reply text.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	socket := flag.String("socket", "", "the daemon's MCP socket")
	relay := flag.String("relay", "", "a lyrad binary to run `lyrad stdio` with (LYRA_BROWSER_DATA_DIR from the environment)")
	name := flag.String("name", "", "clientInfo.name to give")
	flag.Parse()
	var asked atomic.Int32
	c := mcp.NewClient(&mcp.Implementation{Name: *name, Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var tr mcp.Transport
	switch {
	case *socket != "":
		conn, err := net.Dial("unix", *socket)
		if err != nil {
			fail(err)
		}
		tr = &mcp.IOTransport{Reader: conn, Writer: conn}
	case *relay != "":
		cmd := exec.Command(*relay, "stdio")
		cmd.Stderr = os.Stderr
		tr = &mcp.CommandTransport{Command: cmd}
	default:
		fail(fmt.Errorf("-socket or -relay"))
	}
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		fail(err)
	}
	defer cs.Close()
	out := json.NewEncoder(os.Stdout)
	for _, tool := range []string{"get_url", "read_page", "tabs", "screenshot", "open_browser"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		line := map[string]any{"tool": tool}
		if err != nil {
			line["error"] = err.Error()
		} else {
			text := ""
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					text += tc.Text
				}
			}
			b, _ := json.Marshal(res.StructuredContent)
			text += string(b)
			var env map[string]any
			_ = json.Unmarshal(b, &env)
			line["status"] = env["status"]
			line["text"] = text
		}
		_ = out.Encode(line)
	}
	_ = out.Encode(map[string]any{"asked": asked.Load()})
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "impostor:", err)
	os.Exit(2)
}
