package page

import "testing"

func TestPNGSize(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x01\x40\x00\x00\x00\xf0")
	if w, h, ok := PNGSize(png); !ok || w != 320 || h != 240 {
		t.Errorf("PNGSize = %d %d %v", w, h, ok)
	}
	if _, _, ok := PNGSize([]byte("GIF89a")); ok {
		t.Error("a GIF read as a PNG")
	}
}
