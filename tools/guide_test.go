package tools

import (
	"context"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var updateGuide = flag.Bool("update-guide", false, "rewrite guide.md from README.md (go generate ./tools)")

// guideSections are the README sections the guide is made of.
var guideSections = []string{"## Working with pages"}

const guideHeader = "# lyrad: how pages behave\n\n" +
	"Generated from lyrad's README.\n\n"

// guideFromREADME cuts the guide's sections out of the README.
func guideFromREADME(readme string) (string, error) {
	var b strings.Builder
	b.WriteString(guideHeader)
	for _, h := range guideSections {
		i := strings.Index(readme, "\n"+h+"\n")
		if i < 0 {
			return "", os.ErrNotExist
		}
		sec := readme[i+1:]
		if j := strings.Index(sec, "\n## "); j >= 0 {
			sec = sec[:j+1]
		}
		b.WriteString(strings.TrimRight(sec, "\n") + "\n\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n", nil
}

// The guide served as lyrad://guide is the README's long form, kept equal.
func TestGuideMatchesREADME(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := guideFromREADME(string(readme))
	if err != nil {
		t.Fatalf("README.md lacks one of the sections %q", guideSections)
	}
	if *updateGuide {
		if err := os.WriteFile("guide.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if guide != want {
		t.Error("tools/guide.md differs from README.md's sections: run go generate ./tools")
	}
}

// guideBudget is the most bytes the guide may hold (issue 19: 12 KB, from
// 25 KB): an agent reads it whole when a description is not enough.
const guideBudget = 12_000

// The guide fits its budget, and says how pages behave: refs, values,
// panels, hover menus, dates, keys, changes, forms, not only grants.
func TestGuideFits(t *testing.T) {
	if len(guide) > guideBudget {
		t.Errorf("the guide is %d bytes, over its budget of %d", len(guide), guideBudget)
	}
	for _, topic := range []string{"A ref lasts while its element stays in its document", "-> #", "hide_values", "panel", "hover", "2014-02-01", "keys:", "`changes`", "submitText", "(near"} {
		if !strings.Contains(strings.Join(strings.Fields(guide), " "), topic) {
			t.Errorf("the guide does not say %q", topic)
		}
	}
	if strings.Contains(guide, "newer read") {
		t.Error("the guide says a newer read ends a ref")
	}
}

// The tool descriptions point to the guide, and the server serves it.
func TestGuideResource(t *testing.T) {
	pointed := 0
	for _, tl := range all(Deps{}) {
		if strings.Contains(tl.description, GuideURI) {
			pointed++
		}
	}
	if pointed < 5 {
		t.Errorf("%d descriptions point to %s", pointed, GuideURI)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	Register(s, Deps{})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: GuideURI})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "**Selectors.**") {
		t.Errorf("guide read back: %+v", res.Contents)
	}
}
