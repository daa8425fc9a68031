package test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The real binary, for tests that kill processes: built once per run.
var built struct {
	once sync.Once
	path string
	err  error
}

func binaryPath(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "disb-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "disbursementd")
		if out, err := exec.Command("go", "build", "-o", built.path, "../cmd/disbursementd").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// process is the real binary running in dir with env.
type process struct {
	cmd  *exec.Cmd
	URL  string
	logs *syncBuffer
	done chan error
}

// baseEnv is the environment every process of a test shares.
func baseEnv(extra ...string) []string {
	return append(append(os.Environ(), "DISB_AUTH_BCRYPT_COST=10", "DISB_LOG_FORMAT=json"), extra...)
}

// cli runs a command of the binary in dir and returns its output.
func cli(t testing.TB, dir string, env []string, stdin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(binaryPath(t), args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// startProcess starts serve in dir on a free port and waits until it
// answers /healthz.
func startProcess(t testing.TB, dir string, env []string) *process {
	t.Helper()
	port := freePort(t.(*testing.T))
	p := &process{URL: "http://127.0.0.1:" + port, logs: &syncBuffer{}, done: make(chan error, 1)}
	watch(t, func() string { return p.URL }, p.logs)
	p.cmd = exec.Command(binaryPath(t), "serve")
	p.cmd.Dir, p.cmd.Env, p.cmd.Stdout, p.cmd.Stderr = dir, append(env, "DISB_HTTP_ADDR=127.0.0.1:"+port), p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() { p.kill() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(p.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
			return p
		}
		select {
		case err := <-p.done:
			t.Fatalf("serve exited: %v\n%s", err, p.logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not answer in 30 s\n%s", p.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kill ends the process with SIGKILL, as a crash or the OOM killer would.
func (p *process) kill() {
	if p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
	}
}

// waitReady waits until /readyz answers 200.
func (p *process) waitReady(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(p.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never ready\n%s", p.URL, p.logs.String())
}
