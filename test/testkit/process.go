package testkit

import (
	"os"
	"path/filepath"
	"strings"
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

// BinaryPath is the service's binary, built from this checkout the first
// time a test of the run asks for it.
func BinaryPath(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		if repoRootErr != nil {
			built.err = repoRootErr
			return
		}
		dir, err := os.MkdirTemp("", "disb-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "disbursementd")
		built.err = proc.Build(repoRoot, built.path)
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// Process is the real binary running in dir with env.
type Process struct {
	*proc.Process
	Logs *SyncBuffer
}

// BaseEnv is the environment every process of a test shares: this
// process's without the service's settings (DISB_*, but for the tests'
// own DISB_TEST_*), so that a developer's exported DISB_STORE_DSN or
// DISB_CONFIG cannot point a test's process at their store, then extra.
func BaseEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "DISB_") && !strings.HasPrefix(kv, "DISB_TEST_") {
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "DISB_AUTH_BCRYPT_COST=10", "DISB_LOG_FORMAT=json"), extra...)
}

// CLI runs a command of the binary in dir and returns its output.
func CLI(t testing.TB, dir string, env []string, stdin string, args ...string) (string, error) {
	t.Helper()
	return proc.CLI(BinaryPath(t), dir, env, stdin, args...)
}

// StartProcess starts serve in dir on a free port and waits until it
// answers /healthz; it is killed when the test ends, and its log checked
// (watch).
func StartProcess(t testing.TB, dir string, env []string) *Process {
	t.Helper()
	p := &Process{Logs: &SyncBuffer{}}
	watch(t, func() string {
		if p.Process == nil {
			return "http://never-started"
		}
		return p.URL
	}, p.Logs)
	var err error
	if p.Process, err = proc.Start(BinaryPath(t), dir, env, p.Logs); err != nil {
		t.Fatalf("%v\n%s", err, p.Logs.String())
	}
	t.Cleanup(p.Kill)
	return p
}

// MustWaitReady waits until /readyz answers 200.
func (p *Process) MustWaitReady(t testing.TB) {
	t.Helper()
	if err := p.WaitReady(30 * time.Second); err != nil {
		t.Fatalf("%v\n%s", err, p.Logs.String())
	}
}
