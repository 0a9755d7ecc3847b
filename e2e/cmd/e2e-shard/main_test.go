package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
)

func TestParallelTestsTopLevelOnly(t *testing.T) {
	dir := t.TempDir()
	src := `package e2e

import "testing"

func parallel(t *testing.T) { t.Parallel() }

func TestSide(t *testing.T) {
	parallel(t)
}

func TestAlone(t *testing.T) {
	t.Run("sub", func(t *testing.T) { parallel(t) })
}

func TestLater(t *testing.T) {
	x := 1
	_ = x
	parallel(t)
}

func helperTest(t *testing.T) { parallel(t) }
`
	if err := os.WriteFile(filepath.Join(dir, "a_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := parallelTests(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"TestLater", "TestSide"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("parallelTests = %v, want %v", got, want)
	}
	re := regexp.MustCompile(pattern(got))
	for name, want := range map[string]bool{"TestSide": true, "TestLater": true, "TestAlone": false, "TestSideways": false, "XTestSide": false} {
		if re.MatchString(name) != want {
			t.Errorf("pattern %q matches %s: %v, want %v", re, name, !want, want)
		}
	}
}

// The real package: the split must find the side-by-side tests there.
func TestParallelTestsInE2E(t *testing.T) {
	got, err := parallelTests("../..")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, n := range got {
		found[n] = true
	}
	for _, n := range []string{"TestAccnameAgreesWithChrome", "TestPlaywrightClickSpec"} {
		if !found[n] {
			t.Errorf("%s is not in the side-by-side shard (%d tests found)", n, len(got))
		}
	}
}
