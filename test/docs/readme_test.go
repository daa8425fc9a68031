package docs

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/testkit"
)

// readmeCommands returns the commands of the README's first ```sh block
// (its first screen), each without its # comment, with the comment.
func readmeCommands(t *testing.T, readme string) (cmds, comments []string) {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "```sh\n")
	block, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("README.md has no ```sh block")
	}
	for line := range strings.Lines(block) {
		cmd, comment, _ := strings.Cut(line, "#")
		if cmd = strings.TrimSpace(cmd); cmd != "" {
			cmds, comments = append(cmds, cmd), append(comments, strings.TrimSpace(comment))
		}
	}
	return cmds, comments
}

// TestReadmeCommands runs the README's two set-up commands as written, in
// a clean clone of this commit (git clone: uncommitted edits are not in
// it, as they are not on a fresh machine), with none of the DISB_*
// variables a developer's shell may hold:
//   - "run the service" must build, answer /healthz on the address the
//     README names, and stop on Ctrl-C (SIGINT to its process group, as a
//     terminal sends it);
//   - "run the tests" cannot be run whole here: this test is part of the
//     suite it would start, so it would run itself again, without end. It
//     is held to the line .ci/run runs (so every CI run is a run of the
//     README's command, in a clean clone, on a fresh tools directory), and
//     run as written with DISB_TEST_RUN_QUICK=1: its set-up (a
//     throwaway MariaDB and versitygw, the pinned Node.js; no Galera
//     cluster, which the quick stage does not use) and its quick
//     checks (gofmt, tidy, vet, staticcheck, promtool), then one short
//     package instead of the suite; its last line must be the counts line
//     with no failure.
//
// It takes minutes, so it runs when CI=true or DISB_TEST_README=1.
func TestReadmeCommands(t *testing.T) {
	t.Parallel()
	if os.Getenv("CI") != "true" && os.Getenv("DISB_TEST_README") != "1" {
		t.Skip("runs the README's commands in a clean clone (minutes): set DISB_TEST_README=1, or CI=true")
	}
	root := repoRootDir(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds, comments := readmeCommands(t, string(readme))
	if len(cmds) != 2 || !strings.Contains(comments[0], "run the service") || !strings.Contains(comments[1], "test suite") {
		t.Fatalf("the README's first block should hold the service's command, then the tests' command; it holds %q (%q)", cmds, comments)
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(cmds[1]) + `$`).Match(ci) {
		t.Errorf(".ci/run does not run the README's test command %q as a line of its own", cmds[1])
	}

	clone := t.TempDir()
	head := strings.TrimSpace(mustRun(t, root, "git", "rev-parse", "HEAD"))
	mustRun(t, "", "git", "clone", "--quiet", "--no-checkout", root, clone)
	mustRun(t, clone, "git", "checkout", "--quiet", "--detach", head)

	t.Run("service", func(t *testing.T) { readmeService(t, clone, cmds[0]) })
	t.Run("tests", func(t *testing.T) { readmeTests(t, clone, cmds[1]) })
}

// readmeEnv is this process's environment without the DISB_* settings and
// test servers, as a fresh operator's shell has it, keeping only where the
// test tools are cached (DISB_TEST_TOOLS_DIR: on CI, the fresh directory
// .ci/run filled); extra is added.
func readmeEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "DISB_") && !strings.HasPrefix(kv, "DISB_TEST_TOOLS_DIR=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

func readmeService(t *testing.T, dir, cmdline string) {
	addr := "127.0.0.1:8080" // the README's "embedded default"
	var extra []string
	if l, err := net.Listen("tcp", addr); err != nil {
		// Another program holds 8080 on this shared machine: the same
		// command on a free port, or the probe would ask that program.
		free, ferr := net.Listen("tcp", "127.0.0.1:0")
		if ferr != nil {
			t.Fatal(ferr)
		}
		addr = free.Addr().String()
		free.Close()
		extra = append(extra, "DISB_HTTP_ADDR="+addr)
		t.Logf("127.0.0.1:8080 is taken here; the command runs with DISB_HTTP_ADDR=%s", addr)
	} else {
		l.Close()
	}
	cmd := exec.Command("bash", "-c", cmdline)
	cmd.Dir, cmd.Env = dir, readmeEnv(extra...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out testkit.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })

	deadline := time.Now().Add(5 * time.Minute) // go run builds in the clean clone first
	for {
		select {
		case err := <-done:
			t.Fatalf("%q ended before answering /healthz (%v):\n%s", cmdline, err, out.String())
		default:
		}
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("/healthz answered %d:\n%s", resp.StatusCode, out.String())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q: no answer on %s/healthz within 5 minutes:\n%s", cmdline, addr, out.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		// go run exits 1 after an interrupt whatever its program did, so
		// the service's own last line says whether it stopped cleanly.
		if !strings.Contains(out.String(), `"msg":"stopped"`) {
			t.Errorf("after Ctrl-C, %q ended (%v) without its \"stopped\" line:\n%s", cmdline, err, out.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%q did not stop within 30 s of Ctrl-C:\n%s", cmdline, out.String())
	}
}

var countsLine = regexp.MustCompile(`^[0-9]+ passed, 0 failed, [0-9]+ skipped$`)

func readmeTests(t *testing.T, dir, cmdline string) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", cmdline)
	cmd.Dir, cmd.Env = dir, readmeEnv("DISB_TEST_RUN_QUICK=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%q (DISB_TEST_RUN_QUICK=1) in a clean clone: %v\n%s", cmdline, err, out)
	}
	var last string
	for sc := bufio.NewScanner(strings.NewReader(string(out))); sc.Scan(); {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			last = line
		}
	}
	if !countsLine.MatchString(last) {
		t.Fatalf("the last line of %q is %q, not `N passed, 0 failed, N skipped`:\n%s", cmdline, last, out)
	}
	t.Logf("%q (quick) in a clean clone: %s", cmdline, last)
}

// repoRootDir is the repository's top directory (this package is test/).
func repoRootDir(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func mustRun(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
