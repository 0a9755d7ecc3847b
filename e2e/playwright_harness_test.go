package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The Playwright MCP surface's tests: `lyrad stdio --surface playwright`
// driven by the go-sdk client as a Playwright MCP agent drives its
// server, answers read as that agent reads them (Markdown sections).

// connectPW spawns `lyrad stdio --surface playwright` (args added) on
// dataDir; opts may set an elicitation handler.
func connectPW(t *testing.T, dataDir string, args []string, opts *mcp.ClientOptions, extraEnv ...string) *mcp.ClientSession {
	t.Helper()
	return connectPWProto(t, proto2025, dataDir, args, opts, extraEnv...)
}

// connectPWProto is connectPW on a protocol version.
func connectPWProto(t *testing.T, protocol, dataDir string, args []string, opts *mcp.ClientOptions, extraEnv ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(lyradBin, append([]string{"stdio", "--surface", "playwright"}, args...)...)
	return connectCmd(t, cmd, "e2e-playwright", dataDir, protocol, opts, extraEnv...)
}

// pwAnswer is one tool's answer: its text, whether it is an error, and
// how many images it carried.
type pwAnswer struct {
	text    string
	isError bool
	images  []*mcp.ImageContent
}

func (a pwAnswer) String() string { return fmt.Sprintf("isError=%v\n%s", a.isError, a.text) }

// section is the body of "### name", "" when the answer has none.
func (a pwAnswer) section(name string) string {
	i := strings.Index(a.text, "### "+name+"\n")
	if i < 0 {
		return ""
	}
	rest := a.text[i+len("### "+name+"\n"):]
	if j := strings.Index(rest, "\n### "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

func pwCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) pwAnswer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var a pwAnswer
	a.isError = res.IsError
	for _, c := range res.Content {
		switch x := c.(type) {
		case *mcp.TextContent:
			a.text += x.Text
		case *mcp.ImageContent:
			a.images = append(a.images, x)
		}
	}
	return a
}

// pwOK is pwCall that fails the test on an error answer.
func pwOK(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) pwAnswer {
	t.Helper()
	a := pwCall(t, cs, name, args)
	if a.isError {
		t.Fatalf("%s(%v): %s", name, args, a.text)
	}
	return a
}

var pwRefRE = regexp.MustCompile(`\[ref=(e\d+)\]`)

// pwRef is the ref of the first snapshot line of role and name.
func pwRef(t *testing.T, a pwAnswer, role, name string) string {
	t.Helper()
	want := "- " + role + " " + fmt.Sprintf("%q", name)
	for _, l := range strings.Split(a.section("Snapshot"), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), want) {
			if m := pwRefRE.FindStringSubmatch(l); m != nil {
				return m[1]
			}
		}
	}
	t.Errorf("no %s in the snapshot:\n%s", want, a.text)
	return ""
}
