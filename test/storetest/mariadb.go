package storetest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// MariaDB is a private MariaDB server that a test may stop and start.
type MariaDB struct {
	dir, bin, port string
	args           []string // the server's options beyond MustStartMariaDB's
	cmd            *exec.Cmd
	tb             testing.TB
}

func findBin(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
		if p := "/usr/sbin/" + n; fileExists(p) {
			return p
		}
	}
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// MustStartMariaDB initialises a data directory and starts a server on a
// free loopback port. Without mariadbd the test skips, or fails in CI.
func MustStartMariaDB(tb testing.TB) *MariaDB { tb.Helper(); return MustStartMariaDBWith(tb) }

// MustStartMariaDBWith is MustStartMariaDB with the server's options
// args added (--ssl-cert=..., say).
func MustStartMariaDBWith(tb testing.TB, args ...string) *MariaDB {
	tb.Helper()
	bin, install := findBin("mariadbd", "mysqld"), findBin("mariadb-install-db", "mysql_install_db")
	if bin == "" || install == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatal("mariadbd is not installed: CI must run the MariaDB fault tests (see .ci/run)")
		}
		tb.Skip("mariadbd not installed")
	}
	dir, err := os.MkdirTemp("", "disb-mariadb-fault-")
	if err != nil {
		tb.Fatal(err)
	}
	// The server's temporary files go to a directory of its own: in the
	// shared /tmp a busy CI run once lost a bootstrap's temporary table
	// file ("Error on delete of '/tmp/#sql-temptable-…'").
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o700); err != nil {
		tb.Fatal(err)
	}
	u, _ := user.Current()
	out, err := exec.Command(install, "--no-defaults", "--datadir="+filepath.Join(dir, "data"),
		"--auth-root-authentication-method=normal", "--skip-test-db", "--user="+u.Username,
		"--tmpdir="+filepath.Join(dir, "tmp")).CombinedOutput()
	if err != nil {
		tb.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	_ = ln.Close()
	m := &MariaDB{dir: dir, bin: bin, port: port, args: args, tb: tb}
	m.Start()
	tb.Cleanup(func() { m.Stop(); _ = os.RemoveAll(dir) })
	return m
}

// Addr is the server's host:port.
func (m *MariaDB) Addr() string { return "127.0.0.1:" + m.port }

// DSN is root's DSN for a database on this server.
func (m *MariaDB) DSN(db string) string { return "root@tcp(" + m.Addr() + ")/" + db }

// Start starts the server and waits until it accepts connections.
func (m *MariaDB) Start() {
	m.tb.Helper()
	u, _ := user.Current()
	m.cmd = exec.Command(m.bin, "--no-defaults", "--datadir="+filepath.Join(m.dir, "data"),
		"--socket="+filepath.Join(m.dir, "sock"), "--pid-file="+filepath.Join(m.dir, "pid"),
		"--port="+m.port, "--bind-address=127.0.0.1", "--user="+u.Username,
		"--innodb-buffer-pool-size=128M", "--log-error="+filepath.Join(m.dir, "error.log"),
		"--tmpdir="+filepath.Join(m.dir, "tmp"))
	m.cmd.Args = append(m.cmd.Args, m.args...)
	if err := m.cmd.Start(); err != nil {
		m.tb.Fatal(err)
	}
	for i := 0; i < 150; i++ {
		if c, err := net.DialTimeout("tcp", m.Addr(), 100*time.Millisecond); err == nil {
			_ = c.Close()
			time.Sleep(100 * time.Millisecond)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(m.dir, "error.log"))
	m.tb.Fatalf("MariaDB did not start:\n%s", log)
}

// Stop shuts the server down (SIGTERM, as a service manager would).
func (m *MariaDB) Stop() {
	if m.cmd == nil || m.cmd.Process == nil {
		return
	}
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = m.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = m.cmd.Process.Kill()
		<-done
	}
	m.cmd = nil
}
