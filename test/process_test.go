package test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/proc"
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
		built.err = proc.Build("..", built.path)
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// process is the real binary running in dir with env.
type process struct {
	*proc.Process
	logs *syncBuffer
}

// baseEnv is the environment every process of a test shares.
func baseEnv(extra ...string) []string {
	return append(append(os.Environ(), "DISB_AUTH_BCRYPT_COST=10", "DISB_LOG_FORMAT=json"), extra...)
}

// cli runs a command of the binary in dir and returns its output.
func cli(t testing.TB, dir string, env []string, stdin string, args ...string) (string, error) {
	t.Helper()
	return proc.CLI(binaryPath(t), dir, env, stdin, args...)
}

// startProcess starts serve in dir on a free port and waits until it
// answers /healthz; it is killed when the test ends, and its log checked
// (watch).
func startProcess(t testing.TB, dir string, env []string) *process {
	t.Helper()
	p := &process{logs: &syncBuffer{}}
	watch(t, func() string {
		if p.Process == nil {
			return "http://never-started"
		}
		return p.URL
	}, p.logs)
	var err error
	if p.Process, err = proc.Start(binaryPath(t), dir, env, p.logs); err != nil {
		t.Fatalf("%v\n%s", err, p.logs.String())
	}
	t.Cleanup(p.Kill)
	return p
}

// waitReady waits until /readyz answers 200.
func (p *process) waitReady(t testing.TB) {
	t.Helper()
	if err := p.WaitReady(30 * time.Second); err != nil {
		t.Fatalf("%v\n%s", err, p.logs.String())
	}
}
