package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lyrad/lyrad/internal/testenv"
)

// readmeBuild is the README's build command: `go build ... ./cmd/lyrad`.
var readmeBuild = regexp.MustCompile("`(go build [^`]*-o ~/bin/lyrad ./cmd/lyrad)`")

// TestVersionFromBuildCommands: both build commands of the README (its
// `go build` line and `task build`) give `lyrad version` the commit the
// binary was built from, on a machine where Go's VCS stamping is off
// (GOFLAGS=-buildvcs=false), where debug.ReadBuildInfo knows no version.
func TestVersionFromBuildCommands(t *testing.T) {
	root, _ := filepath.Abs("..")
	gitOut, err := exec.Command("git", "-C", root, "describe", "--tags", "--always", "--dirty").Output()
	testenv.Need(t, "git and a git checkout of lyrad", err)
	want := "lyrad " + strings.TrimSpace(string(gitOut))
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := readmeBuild.FindSubmatch(readme)
	if m == nil {
		t.Fatal("README has no `go build ... -o ~/bin/lyrad ./cmd/lyrad` command")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "readme-lyrad")
	task := filepath.Join(dir, "task-lyrad")
	for _, c := range []struct{ name, cmd string }{
		{"README's go build", strings.Replace(string(m[1]), "~/bin/lyrad", bin, 1)},
		{"task build", "go run github.com/go-task/task/v3/cmd/task@v3.44.1 build BIN=" + task},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		cmd := exec.CommandContext(ctx, "sh", "-c", c.cmd)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%s (%s): %v\n%s", c.name, c.cmd, err, out)
		}
	}
	for _, b := range []string{bin, task} {
		out, err := exec.Command(b, "version").Output()
		if got := strings.TrimSpace(string(out)); err != nil || got != want {
			t.Errorf("%s version: %q (%v), want %q", filepath.Base(b), got, err, want)
		}
	}
}
