package snapshot

import (
	"math/rand"
	"testing"
)

// CutSlice of the slice a page-side read sends answers what Cut of the
// whole text does.
func TestCutSliceIsCut(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []rune("ab\n\n é€😀")
	for n := 0; n < 3000; n++ {
		r := make([]rune, rng.Intn(60))
		for i := range r {
			r[i] = alphabet[rng.Intn(len(alphabet))]
		}
		text := string(r)
		off, max := rng.Intn(70)-5, rng.Intn(30)-2
		o, m := max0(off), max
		if m < 1 {
			m = 1
		}
		slice := ""
		if o < len(r) {
			slice = string(r[o:min(len(r), o+m)])
		}
		if got, want := CutSlice(slice, off, len(r), max), Cut(text, off, max); got != want {
			t.Fatalf("Cut(%q, %d, %d) = %+v, CutSlice gives %+v", text, off, max, want, got)
		}
	}
}
