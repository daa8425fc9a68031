package e2e

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/testkit"
)

// The administrator's commands say what went wrong in words and exit
// codes that agree across commands (issue 20's low items).

// TestUnusableDataDirSameExitCode: the same unusable data directory is the
// same failure (exit 1, naming store.dsn) for every command that opens the
// store; migrate used to answer 2, a usage error.
func TestUnusableDataDirSameExitCode(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("data", []byte("a file where the data directory should be"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DISB_HTTP_ADDR", "127.0.0.1:0")
	for _, args := range [][]string{{"serve"}, {"migrate"}, {"users", "list"}, {"reconcile"}} {
		code, _, errs := testkit.RunCLI(t, "", args...)
		if code != app.ExitFailure || !strings.Contains(errs, "DISB_STORE_DSN") {
			t.Errorf("%v with data/ unusable: exit %d, want %d naming DISB_STORE_DSN:\n%s", args, code, app.ExitFailure, errs)
		}
	}
}

// TestKeyFileErrorsNameTheVariable: a key file the service cannot read is
// named with its key and its DISB_ variable.
func TestKeyFileErrorsNameTheVariable(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("DISB_HTTP_ADDR", "127.0.0.1:0")
	missing := filepath.Join(t.TempDir(), "nope.pem")
	for _, env := range []string{"DISB_AUTH_PRIVATE_KEY_FILE", "DISB_AUTH_PUBLIC_KEYS_FILE"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, missing)
			code, _, errs := testkit.RunCLI(t, "", "serve")
			if code != app.ExitFailure || !strings.Contains(errs, env) || !strings.Contains(errs, "nope.pem") {
				t.Errorf("serve with %s missing: exit %d; the error lacks the variable or the path:\n%s", env, code, errs)
			}
		})
	}
}

// TestVersionHelpHasNoConfig: version reads no configuration, so its help
// offers no --config.
func TestVersionHelpHasNoConfig(t *testing.T) {
	code, out, _ := testkit.RunCLI(t, "", "version", "--help")
	if code != app.ExitOK || !strings.Contains(out, "Usage: disbursementd version") || strings.Contains(out, "config") {
		t.Errorf("version --help: exit %d:\n%s", code, out)
	}
	if code, _, _ := testkit.RunCLI(t, "", "version", "--config", "x.yaml"); code != app.ExitUsage {
		t.Errorf("version --config: exit %d, want a usage error", code)
	}
}

// TestUsersMessagesSayWhatHappened: an existing user, or a missing one,
// is said in words, not as the error kind's name.
func TestUsersMessagesSayWhatHappened(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("DISB_AUTH_BCRYPT_COST", "10")
	if code, _, errs := testkit.RunCLI(t, testkit.Password+"\n", "users", "add", "--user", testkit.Partner, "--nit", testkit.Nit); code != app.ExitOK {
		t.Fatalf("users add: %d %s", code, errs)
	}
	code, _, errs := testkit.RunCLI(t, testkit.Password+"\n", "users", "add", "--user", testkit.Partner, "--nit", testkit.Nit)
	if code != app.ExitExists || !strings.Contains(errs, `user "acme" exists already`) || strings.Contains(errs, "conflict") {
		t.Errorf("users add twice: exit %d: %q", code, errs)
	}
	code, _, errs = testkit.RunCLI(t, "", "users", "deactivate", "--user", "nobody")
	if code != app.ExitNotFound || !strings.Contains(errs, `no user "nobody"`) {
		t.Errorf("deactivate an unknown user: exit %d: %q", code, errs)
	}
}

// TestUsersAddNoEchoOnATerminal: on a terminal, users add prompts and
// reads the password without echo; it used to show it as it was typed.
// users passwd reads the same way.
func TestUsersAddNoEchoOnATerminal(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("DISB_AUTH_BCRYPT_COST", "10")
	typeOnTerminal(t, testkit.Password, "users", "add", "--user", testkit.Partner, "--nit", testkit.Nit)
	typeOnTerminal(t, "a rotated password", "users", "passwd", "--user", testkit.Partner)
}

// typeOnTerminal runs a command whose standard input is a terminal, types
// secret once echo is off, and checks the terminal never showed it and
// that the command prompted.
func typeOnTerminal(t *testing.T, secret string, args ...string) {
	t.Helper()
	master, slave := openPTY(t)
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- app.CLI(context.Background(), args, app.IO{Stdin: slave, Stdout: io.Discard, Stderr: &stderr})
	}()
	// Type only once the terminal stops echoing (a terminal echoes as keys
	// arrive, not as they are read); give up waiting after a minute (the
	// command opens the store first, slowly on a loaded machine) and type
	// anyway, so that a command that never turns echo off is seen.
	for deadline := time.Now().Add(time.Minute); echoing(t, slave) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := master.WriteString(secret + "\n"); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != app.ExitOK {
		t.Fatalf("%v on a terminal: exit %d: %s", args, code, stderr.String())
	}
	_ = slave.Close()
	screen, _ := io.ReadAll(master) // ends with EIO once the slave is closed
	if bytes.Contains(screen, []byte(secret)) {
		t.Errorf("%v: the password was echoed to the terminal: %q", args, screen)
	}
	if !strings.Contains(stderr.String(), "password: ") {
		t.Errorf("%v: no prompt on a terminal: %q", args, stderr.String())
	}
}

// openPTY opens a pseudo-terminal pair.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { _ = master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = slave.Close() })
	return master, slave
}

func echoing(t *testing.T, tty *os.File) bool {
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return tio.Lflag&unix.ECHO != 0
}

// TestKeygenDirectoryLetsTheServiceReachItsKey: keygen's directory lets
// another user (the service's) traverse it, while private.pem stays 0600;
// it used to be 0700, so uid 65532 could not reach a key made by root
// even after a chown of the key. test/deploy runs the whole set-up as
// uid 65532 (TestComposeKeySetUpAsUID65532).
func TestKeygenDirectoryLetsTheServiceReachItsKey(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "keys")
	if code, out, errs := testkit.RunCLI(t, "", "keygen", "--out", dir); code != app.ExitOK {
		t.Fatalf("keygen: %d %s %s", code, out, errs)
	}
	di, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	ki, err := os.Stat(filepath.Join(dir, "private.pem"))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm()&0o001 == 0 || ki.Mode().Perm() != 0o600 {
		t.Errorf("keys directory %v, private.pem %v; want a directory others can traverse and a 0600 key", di.Mode().Perm(), ki.Mode().Perm())
	}
}

// TestBroadTrustedProxiesWarned: a trusted-proxy range broader than a
// set of proxies (the Kubernetes example's 10.0.0.0/8) is warned about at
// start, naming the range; a proxy's own address is not.
func TestBroadTrustedProxiesWarned(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		ranges string
		warned bool
	}{{"10.0.0.0/8", true}, {"2001:db8::/32", true}, {"10.1.2.3/32,10.9.0.0/16", false}} {
		in := testkit.MustStart(t, func(c *config.Config) {
			c.HTTP.TrustedProxies = nil
			for _, r := range strings.Split(tt.ranges, ",") {
				c.HTTP.TrustedProxies = append(c.HTTP.TrustedProxies, mustPrefix(r))
			}
		})
		logs := in.Logs.String()
		if got := strings.Contains(logs, "http.trusted_proxies holds a broad range"); got != tt.warned {
			t.Errorf("trusted %s: warned %v, want %v", tt.ranges, got, tt.warned)
		}
		if tt.warned && !strings.Contains(logs, strings.Split(tt.ranges, ",")[0]) {
			t.Errorf("the warning does not name %s", tt.ranges)
		}
	}
}
