package deploy

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

// dockerContext returns the matcher of the root .dockerignore, as the
// Docker builder reads it.
func dockerContext(t *testing.T) *patternmatcher.PatternMatcher {
	t.Helper()
	f, err := os.Open(repoPath(".dockerignore"))
	if err != nil {
		t.Fatalf("no .dockerignore: the build context carries data/, keys and node_modules: %v", err)
	}
	defer f.Close()
	patterns, err := ignorefile.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	m, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func excluded(t *testing.T, m *patternmatcher.PatternMatcher, p string) bool {
	t.Helper()
	ex, err := m.MatchesOrParentMatches(filepath.FromSlash(p))
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// TestDockerBuildContext: the build context leaves out what must not
// reach an image or a builder (the embedded default's private key and
// database, compose's keys, node_modules, binaries, .git), and what it
// keeps is enough: the service builds from those files alone, as the
// Dockerfile builds it.
func TestDockerBuildContext(t *testing.T) {
	m := dockerContext(t)
	for _, p := range []string{"data/keys/private.pem", "data/disbursement.db", "deploy/keys/private.pem",
		"test/openapi/node_modules/@redocly/cli/package.json", "disbursementd", ".git/config",
		"test/load/results/run.md", "adapters/httpapi/server_test.go"} {
		if !excluded(t, m, p) {
			t.Errorf("%s is in the Docker build context", p)
		}
	}
	out, err := exec.Command("git", "-C", repo, "ls-files").Output()
	need(t, err == nil, "git ls-files does not work here")
	dir := t.TempDir()
	kept := 0
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		p := sc.Text()
		if excluded(t, m, p) {
			continue
		}
		data, err := os.ReadFile(repoPath(p))
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
		kept++
	}
	build := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(t.TempDir(), "disbursementd"), "./cmd/disbursementd")
	build.Dir, build.Env = dir, append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false")
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("the service does not build from the %d files of the build context: %v\n%s", kept, err, out)
	}
}
