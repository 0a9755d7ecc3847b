package page

import (
	"errors"
	"fmt"
	"testing"
)

func TestIsBadSelector(t *testing.T) {
	bad := &ScriptError{Text: "Error: lyrad:badselector div["}
	if !IsBadSelector(bad) || !IsBadSelector(fmt.Errorf("wait: %w", bad)) {
		t.Fatal("a rejected selector is not recognised")
	}
	if IsBadSelector(&ScriptError{Text: "TypeError: x is undefined"}) || IsBadSelector(errors.New("lyrad:badselector")) || IsBadSelector(nil) {
		t.Fatal("an error that is not our page-side rejection counts as a bad selector")
	}
}
