// Package proc runs the real disbursementd binary as processes, for the
// tests and the load tool that kill and restart them: it builds the
// binary, starts serve on a free loopback port, kills it with SIGKILL as
// a crash would, and runs its commands (migrate, users add, reconcile).
package proc

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Build compiles the service's binary from the module at root into out.
func Build(root, out string) error {
	cmd := exec.Command("go", "build", "-o", out, "./cmd/disbursementd")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %v\n%s", root, err, b)
	}
	return nil
}

// CLI runs a command of bin in dir with env and returns its output.
func CLI(bin, dir string, env []string, stdin string, args ...string) (string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr().(*net.TCPAddr).Port), nil
}

// Process is serve of the real binary, running in its own directory.
type Process struct {
	URL  string
	cmd  *exec.Cmd
	done chan error
}

// Start runs serve of bin in dir with env on a free loopback port,
// writing its log to logs, and waits until it answers /healthz. A process
// that exits or stays silent for 30 s is an error (its log says why).
func Start(bin, dir string, env []string, logs io.Writer) (*Process, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	p := &Process{URL: "http://127.0.0.1:" + port, done: make(chan error, 1)}
	p.cmd = exec.Command(bin, "serve")
	p.cmd.Dir, p.cmd.Env, p.cmd.Stdout, p.cmd.Stderr = dir, append(env, "DISB_HTTP_ADDR=127.0.0.1:"+port), logs, logs
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { p.done <- p.cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(p.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
			return p, nil
		}
		select {
		case err := <-p.done:
			p.done <- err
			return nil, fmt.Errorf("serve exited: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			p.Kill()
			return nil, errors.New("serve did not answer /healthz in 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill ends the process with SIGKILL, as a crash or the OOM killer would,
// and waits for it to be gone. Killing it again does nothing.
func (p *Process) Kill() {
	if p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case err := <-p.done:
		p.done <- err
	case <-time.After(10 * time.Second):
	}
}

// PID is the process's id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// WaitReady waits until /readyz answers 200, for at most limit.
func (p *Process) WaitReady(limit time.Duration) error {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(p.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("%s never ready in %s", p.URL, limit)
}
