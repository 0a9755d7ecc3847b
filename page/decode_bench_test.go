package page

import (
	"os"
	"testing"

	"github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/lyrad/lyrad/snapshot"
)

// Decoding benchmarks over recorded answers of a real page, named by
// LYRAD_BENCH_SNAP (a DOMSnapshot.captureSnapshot result) and
// LYRAD_BENCH_AX (an Accessibility.getFullAXTree result); skipped without.
func benchBody(b *testing.B, env string) []byte {
	p := os.Getenv(env)
	if p == "" {
		b.Skip(env + " not set")
	}
	body, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	return body
}

func BenchmarkDecodeLayout(b *testing.B) {
	body := benchBody(b, "LYRAD_BENCH_SNAP")
	for b.Loop() {
		var raw rawSnapshot
		if err := jsonv2.Unmarshal(body, &raw, jsonv2.AllowInvalidUTF8(true)); err != nil {
			b.Fatal(err)
		}
		if _, err := decodeLayout(&raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeAX(b *testing.B) {
	body := benchBody(b, "LYRAD_BENCH_AX")
	for b.Loop() {
		var r struct {
			Nodes []snapshot.AXNode `json:"nodes"`
		}
		if err := jsonv2.Unmarshal(body, &r, jsonv2.AllowInvalidUTF8(true)); err != nil {
			b.Fatal(err)
		}
	}
}
