package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// capturePage has a drawn canvas, an svg, a tall body and a button in a
// cross-site iframe.
func captureSites(t *testing.T) *site {
	a := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	a.page("/", fmt.Sprintf(`<!doctype html><title>Pictures</title><style>body{margin:0}</style>
<canvas id="c" width="120" height="80"></canvas>
<svg id="s" width="50" height="40"><rect width="50" height="40" fill="#00f"/></svg>
<img id="gone" style="display:none" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<iframe src="%s/frame" width="300" height="100" style="border:0"></iframe>
<div style="height:2500px"></div><p>bottom</p>
<script>const x = document.getElementById('c').getContext('2d'); x.fillStyle = '#f00'; x.fillRect(0, 0, 120, 80);</script>`, b.URL))
	b.page("/frame", `<!doctype html><style>body{margin:0}</style><button style="width:90px;height:30px;background:#0f0;border:0">Go</button>`)
	return a
}

// pngAt decodes a capture file and checks its size and the envelope.
func pngAt(t *testing.T, env map[string]any) ([]byte, int, int) {
	t.Helper()
	wantStatus(t, env, "ok")
	path := env["image_path"].(string)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", path, err)
	}
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	if env["mime_type"] != "image/png" || int(env["width"].(float64)) != w || int(env["height"].(float64)) != h || int(env["bytes"].(float64)) != len(data) {
		t.Errorf("envelope %v for a %dx%d PNG of %d bytes", env, w, h, len(data))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("capture mode %v", st.Mode())
	}
	return data, w, h
}

func centre(t *testing.T, data []byte) (r, g, b uint32) {
	img, _ := png.Decode(bytes.NewReader(data))
	bb := img.Bounds()
	return pixel(t, data, bb.Dx()/2, bb.Dy()/2)
}

func pixel(t *testing.T, data []byte, x, y int) (r, g, b uint32) {
	img, _ := png.Decode(bytes.NewReader(data))
	bb := img.Bounds()
	r, g, b, _ = img.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
	return r >> 8, g >> 8, b >> 8
}

func TestScreenshotAndReadImage(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := captureSites(t)
	dir := t.TempDir()
	capDir := filepath.Join(t.TempDir(), "caps")
	cs := connectStdio(t, dir, proto2026, "LYRA_BROWSER_CAPTURE_DIR="+capDir)
	wantStatus(t, call(t, cs, "screenshot", nil), "browser_not_open")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/", "wait_until": "load"}), "ok")

	env := call(t, cs, "screenshot", nil)
	_, vw, vh := pngAt(t, env)
	if !strings.HasPrefix(env["image_path"].(string), capDir+string(os.PathSeparator)+"page-") {
		t.Errorf("image_path %v not in LYRA_BROWSER_CAPTURE_DIR", env["image_path"])
	}
	env = call(t, cs, "screenshot", map[string]any{"full_page": true})
	_, fw, fh := pngAt(t, env)
	if fw > vw || fw < vw-20 || fh < 2500 || fh <= vh {
		t.Errorf("full page %dx%d, viewport %dx%d", fw, fh, vw, vh)
	}

	// One element: the pixels it renders, at its own size.
	env = call(t, cs, "read_image", map[string]any{"selector": "#c"})
	data, w, h := pngAt(t, env)
	if w != 120 || h != 80 || env["tag"] != "canvas" {
		t.Errorf("canvas capture %dx%d tag %v", w, h, env["tag"])
	}
	if r, g, b := centre(t, data); r < 200 || g > 50 || b > 50 {
		t.Errorf("canvas centre is %d,%d,%d, want red", r, g, b)
	}
	env = call(t, cs, "read_image", map[string]any{"selector": "svg#s"})
	data, w, h = pngAt(t, env)
	if w != 50 || h != 40 {
		t.Errorf("svg capture %dx%d", w, h)
	}
	if r, g, b := centre(t, data); b < 200 || r > 50 || g > 50 {
		t.Errorf("svg centre is %d,%d,%d, want blue", r, g, b)
	}
	// An element of a cross-site iframe, by its ref.
	var tree string
	waitFor(t, "the iframe's button in the tree", 10*time.Second, func() bool {
		tree, _ = call(t, cs, "read_page", map[string]any{"mode": "tree"})["tree"].(string)
		return strings.Contains(tree, `button "Go"`)
	})
	_, byName := treeLines(t, tree)
	env = call(t, cs, "read_image", map[string]any{"selector": "aria-ref=" + byName[`button "Go"`]})
	data, w, h = pngAt(t, env)
	if w != 90 || h != 30 {
		t.Errorf("iframe button capture %dx%d", w, h)
	}
	if r, g, b := pixel(t, data, 4, 4); g < 200 || r > 50 || b > 50 {
		t.Errorf("iframe button corner is %d,%d,%d, want green", r, g, b)
	}

	// Failures.
	wantStatus(t, call(t, cs, "read_image", map[string]any{"selector": "#nothing"}), "not_found")
	wantStatus(t, call(t, cs, "read_image", map[string]any{"selector": "#gone"}), "hidden")
	wantStatus(t, call(t, cs, "read_image", map[string]any{"selector": "aria-ref=e999"}), "not_found")
	env = call(t, cs, "read_image", map[string]any{"selector": "canvas["})
	if env["status"] != "error" || env["argument"] != "selector" {
		t.Errorf("bad selector: %v", env)
	}
	env = call(t, cs, "read_image", nil)
	if env["status"] != "error" || env["argument"] != "selector" {
		t.Errorf("no selector: %v", env)
	}

	// inline=true adds the image as a content block; the envelope and the
	// audit carry the path and size, never the pixels.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_image", Arguments: map[string]any{"selector": "#c", "inline": true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 2 {
		t.Fatalf("inline read_image: %d content blocks, want text and image", len(res.Content))
	}
	img, ok := res.Content[1].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" || len(img.Data) < 100 {
		t.Fatalf("second block %T", res.Content[1])
	}
	if _, err := png.Decode(bytes.NewReader(img.Data)); err != nil {
		t.Errorf("inline image is not a PNG: %v", err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if len(text) > 1000 {
		t.Errorf("the text block carries %d characters: pixels in the envelope?", len(text))
	}
	auditText, _ := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
	captured := rowsWhere(auditRows(t, dir), has{"tool": "read_image", "status": "ok"})
	for _, r := range captured {
		if p, _ := r["image_path"].(string); !strings.HasPrefix(p, capDir) || r["bytes"] == nil {
			t.Errorf("audit row %v lacks image_path or bytes", r)
		}
	}
	captures := len(captured)
	if captures < 4 || bytes.Contains(auditText, []byte("iVBORw0KGgo")) {
		t.Errorf("%d read_image rows; base64 PNG in the audit: %v", captures, bytes.Contains(auditText, []byte("iVBORw0KGgo")))
	}
}

// TestCapturePruning: captures are pruned oldest first to
// LYRA_BROWSER_CAPTURE_KEEP, and files that are not lyrad's are left alone.
// With VEGA_DATA_DIR set, captures go under its uploads root.
func TestCapturePruning(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := captureSites(t)
	vega := t.TempDir()
	capDir := filepath.Join(vega, "uploads", "browser")
	os.MkdirAll(capDir, 0o700)
	foreign := filepath.Join(capDir, "page-notours.png")
	os.WriteFile(foreign, []byte("x"), 0o600)
	cs := connectStdio(t, t.TempDir(), proto2026, "VEGA_DATA_DIR="+vega, "LYRA_BROWSER_CAPTURE_KEEP=3")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/"}), "ok")
	var paths []string
	for i := 0; i < 5; i++ {
		env := call(t, cs, "screenshot", nil)
		wantStatus(t, env, "ok")
		paths = append(paths, env["image_path"].(string))
		time.Sleep(20 * time.Millisecond) // distinct modification times
	}
	for i, p := range paths {
		if !strings.HasPrefix(p, capDir) {
			t.Errorf("capture %s not under $VEGA_DATA_DIR/uploads/browser", p)
		}
		_, err := os.Stat(p)
		if kept := err == nil; kept != (i >= 2) {
			t.Errorf("capture %d kept=%v, want the newest 3 kept", i, kept)
		}
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("a file that is not lyrad's was pruned")
	}
	ents, _ := os.ReadDir(capDir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}
