package deploy

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	// The Dockerfile's own build line, with the build arguments the guide
	// passes (evaluated by a shell in the checkout, as the operator's is),
	// in a context without .git: the binary must name the version and the
	// commit it was built from.
	args := guideBuildArgs(t)
	outDir := t.TempDir()
	build := exec.Command("bash", "-c", "set -euo pipefail; "+strings.ReplaceAll(dockerfileBuildLine(t), "/out/", outDir+"/"))
	build.Dir, build.Env = dir, append(os.Environ(), "VERSION="+args["VERSION"], "COMMIT="+args["COMMIT"], "GOFLAGS=-buildvcs=false")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the service does not build from the %d files of the build context: %v\n%s", kept, err, out)
	}
	head, err := exec.Command("git", "-C", repo, "rev-parse", "HEAD").Output()
	need(t, err == nil, "git rev-parse does not work here")
	got, err := exec.Command(filepath.Join(outDir, "disbursementd"), "version").CombinedOutput()
	if want := fmt.Sprintf("disbursementd %s (%.12s)\n", args["VERSION"], head); err != nil || string(got) != want {
		t.Errorf("an image built as the guide says reports %q (%v), want %q", got, err, want)
	}
}

// guideBuildArgs evaluates the --build-arg values of the operator guide's
// docker build command, in a shell in the checkout (at this commit, not
// the release tag the guide checks out first).
func guideBuildArgs(t *testing.T) map[string]string {
	t.Helper()
	block := fencedBlock(t, "docs/operator-guide.md", "docker build -f deploy/Dockerfile")
	args := map[string]string{}
	for _, m := range regexp.MustCompile(`--build-arg ([A-Z]+)=(\$\([^)]*\)|\S+)`).FindAllStringSubmatch(block, -1) {
		cmd := exec.Command("bash", "-c", "printf %s "+m[2])
		cmd.Dir = repo
		v, err := cmd.Output()
		if err != nil {
			t.Fatalf("the guide's --build-arg %s=%s: %v", m[1], m[2], err)
		}
		args[m[1]] = string(v)
	}
	if args["VERSION"] == "" || args["COMMIT"] == "" {
		t.Fatalf("the guide's docker build passes %v; it must pass VERSION and COMMIT:\n%s", args, block)
	}
	return args
}

// dockerfileBuildLine is the Dockerfile's RUN line that builds the binary.
func dockerfileBuildLine(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(repoPath("deploy/Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(strings.ReplaceAll(string(data), "\\\n", " ")) {
		if run, ok := strings.CutPrefix(line, "RUN CGO_ENABLED=0 go build"); ok {
			return "CGO_ENABLED=0 go build" + run
		}
	}
	t.Fatal("deploy/Dockerfile has no RUN CGO_ENABLED=0 go build line")
	return ""
}
