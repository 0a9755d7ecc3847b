package session

import "testing"

// submit is a control's text unless it names its engine or is a ref.
func TestSubmitSelector(t *testing.T) {
	for raw, want := range map[string]selectorKind{
		"Save draft":      selSubmit,
		"  Update ":       selSubmit,
		"#save":           selSubmit, // a text first, then CSS
		"button.primary":  selSubmit,
		"aria-ref=e12":    selRef,
		"text=Save":       selText,
		"css=#save":       selCSS,
		"xpath=//button":  selXPath,
		"//form//button":  selXPath,
		"(//button)[2]":   selXPath,
		"Save & continue": selSubmit,
	} {
		p, err := submitSelector(raw)
		if err != nil || p.kind != want {
			t.Errorf("%q: %v %v, want %v", raw, p.kind, err, want)
		}
	}
	for _, raw := range []string{"", "   ", "text="} {
		_, err := submitSelector(raw)
		se, ok := err.(*Error)
		if !ok || se.Argument != "submit" {
			t.Errorf("%q: %v, want an error naming submit", raw, err)
		}
	}
}
