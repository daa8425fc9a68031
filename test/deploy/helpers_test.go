package deploy

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// repo is the repository's root, seen from test/deploy.
const repo = "../.."

func repoPath(p string) string { return filepath.Join(repo, filepath.FromSlash(p)) }

// inCI reports whether the tests run in CI, where a test that cannot run
// here fails instead of skipping.
func inCI() bool { return os.Getenv("CI") == "true" }

// need skips the test with reason when ok is false, and fails it in CI.
func need(t *testing.T, ok bool, reason string) {
	t.Helper()
	if ok {
		return
	}
	if inCI() {
		t.Fatalf("CI=true and %s", reason)
	}
	t.Skip(reason)
}

// needRoot needs root and the named Debian tools.
func needRoot(t *testing.T, tools ...string) {
	t.Helper()
	need(t, os.Geteuid() == 0, "this test needs root (it switches users and builds a scratch root)")
	for _, tool := range tools {
		_, err := exec.LookPath(tool)
		need(t, err == nil, tool+" is not installed (Debian: util-linux, passwd, systemd)")
	}
}

// TestMain removes the binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		_ = os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	binPath   string
	binErr    error
)

// binary builds the service once, static and with -trimpath as the
// Dockerfile builds it (so that the two builds share Go's compiled
// packages: a build cache without CGO_ENABLED=0 builds compiles the
// service's dependencies once for both, not once each), and returns its
// path.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "disb-deploy-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "disbursementd")
		cmd := exec.Command("go", "build", "-trimpath", "-o", binPath, "./cmd/disbursementd")
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// fencedBlock returns the first ```sh block of a Markdown file that
// contains marker.
func fencedBlock(t *testing.T, path, marker string) string {
	t.Helper()
	data, err := os.ReadFile(repoPath(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		if strings.Contains(m[1], marker) {
			return m[1]
		}
	}
	t.Fatalf("%s: no ```sh block containing %q", path, marker)
	return ""
}

// freeAddr returns a loopback address with a free port.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitReady polls url until it answers 200, the process exits, or a
// bound passes; it returns the last status or error.
func waitReady(ctx context.Context, url string, exited <-chan struct{}) error {
	var last error
	for i := 0; i < 300; i++ {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
			err = fmt.Errorf("%s: %s", url, resp.Status)
		}
		last = err
		select {
		case <-exited:
			return fmt.Errorf("the service exited: %v", last)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return last
}

// started runs cmd in the background; its output goes to a buffer shown
// on failure, and it is stopped (SIGTERM, then killed) at cleanup. The
// channel closes when it exits.
func started(t *testing.T, cmd *exec.Cmd) (<-chan struct{}, *lockedBuffer) {
	t.Helper()
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("output of %s:\n%s", filepath.Base(cmd.Path), out.String())
		}
	})
	return exited, out
}

// lockedBuffer is an output buffer safe for a process and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// awaitLog returns the value of key in the first log line with msg,
// waiting a while for it: the service may answer its probes a moment
// before it writes its listening line.
func awaitLog(out *lockedBuffer, msg, key string) string {
	for i := 0; i < 100; i++ {
		if v := logValue(out.String(), msg, key); v != "" {
			return v
		}
		time.Sleep(50 * time.Millisecond)
	}
	return ""
}

// logValue returns the value of key in the first JSON log line that has
// msg, or "".
func logValue(logs, msg, key string) string {
	sc := bufio.NewScanner(strings.NewReader(logs))
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, `"msg":"`+msg+`"`) {
			continue
		}
		if m := regexp.MustCompile(`"` + key + `":"([^"]*)"`).FindStringSubmatch(line); m != nil {
			return m[1]
		}
	}
	return ""
}
