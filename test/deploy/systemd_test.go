package deploy

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
)

const unitFile = "deploy/systemd/disbursementd.service"

// unit is what the tests read of a systemd unit: every Key=value of its
// [Service] section, in order.
type unit map[string][]string

func readUnit(t *testing.T, path string) unit {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u, section := unit{}, ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			section = line
		case section == "[Service]":
			k, v, _ := strings.Cut(line, "=")
			u[k] = append(u[k], v)
		}
	}
	return u
}

func (u unit) one(t *testing.T, key string) string {
	t.Helper()
	if len(u[key]) != 1 {
		t.Fatalf("the unit has %d %s=, want one", len(u[key]), key)
	}
	return u[key][0]
}

// exposure is the overall exposure systemd-analyze security gives a unit
// file, offline (no systemd needs to run).
func exposure(t *testing.T, path string) float64 {
	t.Helper()
	out, err := exec.Command("systemd-analyze", "security", "--offline=true", path).CombinedOutput()
	m := regexp.MustCompile(`Overall exposure level for \S+: (\d+\.\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

// TestSystemdUnitSecurity: systemd-analyze security rates the unit 3.0
// or better (lower is better); the unit of 1.0.0 rated 8.5 EXPOSED.
func TestSystemdUnitSecurity(t *testing.T) {
	_, err := exec.LookPath("systemd-analyze")
	need(t, err == nil, "systemd-analyze is not installed (Debian: systemd)")
	if got := exposure(t, repoPath(unitFile)); got > 3.0 {
		out, _ := exec.Command("systemd-analyze", "security", "--offline=true", repoPath(unitFile)).CombinedOutput()
		t.Errorf("systemd-analyze security rates the unit %.1f; want 3.0 or better:\n%s", got, out)
	}
}

// TestSystemdInstallStepsStartTheService runs the operator guide's
// install steps as written, as root, in a scratch root (systemctl stands
// in: there is no systemd here); then, as systemd would, checks the unit
// with systemd-analyze verify with the binary in place, and runs its
// ExecStart as its User= with setpriv, with its Environment= (DISB_CONFIG
// alone names the settings), WorkingDirectory= and UMask=, on a MariaDB
// database: the service must become ready. The service's user must not
// be able to write its configuration, and an admin's shell on the host
// must see the same settings.
func TestSystemdInstallStepsStartTheService(t *testing.T) {
	needRoot(t, "systemd-analyze", "install")
	sys := installSystemd(t, testDatabase(t))
	exited, out := started(t, sys.s.command(sys.serveScript(t)))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := waitReady(ctx, "http://"+sys.addr+"/readyz", exited); err != nil {
		t.Fatalf("the unit's service did not become ready: %v\n%s", err, out.String())
	}
	if kid := awaitLog(out, "listening", "kid"); kid == "" {
		t.Errorf("no listening line with the key's kid:\n%s", out.String())
	}
	// An admin's login shell on the host (root, /etc/profile.d read) sees
	// the service's settings: the same uploads directory and database, so
	// reconcile finds nothing missing (it once reported every file MISSING,
	// reading ./data/uploads).
	admin := sys.s.command(`inside /bin/bash -c '. /etc/profile.d/disbursementd.sh && cd /root && disbursementd config print && disbursementd reconcile'`)
	got, err := admin.CombinedOutput()
	if err != nil {
		t.Fatalf("an admin's config print and reconcile on the host: %v\n%s", err, got)
	}
	for _, want := range []string{"/var/lib/disbursementd/uploads", "driver: mysql"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("an admin's config print lacks %q: it does not read the service's file:\n%s", want, got)
		}
	}
}

// TestSystemdStartsWithTheDatabaseDown: with the database down at start,
// the unit's service starts anyway (as the MySQL section says), answers
// /healthz, and 503 on /readyz, and keeps running, instead of a start
// command that exits 1 and a unit that restarts until systemd gives up.
func TestSystemdStartsWithTheDatabaseDown(t *testing.T) {
	needRoot(t, "systemd-analyze", "install")
	down := freeAddr(t) // nothing listens there
	sys := installSystemd(t, "disb:x@tcp("+down+")/disbursement")
	exited, out := started(t, sys.s.command(sys.serveScript(t)))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := waitReady(ctx, "http://"+sys.addr+"/healthz", exited); err != nil {
		t.Fatalf("with the database down, the unit's service did not start: %v\n%s", err, out.String())
	}
	if awaitLog(out, "database not usable at start; retrying in the background", "error") == "" {
		t.Errorf("no 'database not usable at start' line:\n%s", out.String())
	}
	resp, err := http.Get("http://" + sys.addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz with the database down: %d, want 503", resp.StatusCode)
	}
	select {
	case <-exited:
		t.Fatalf("the service exited with the database down:\n%s", out.String())
	case <-time.After(3 * time.Second):
	}
}

// systemdInstall is a scratch root after the guide's systemd steps, with
// the operator's edit done: the DSN (and, for the test, a free port).
type systemdInstall struct {
	s    *scratchRoot
	u    unit
	addr string
}

func installSystemd(t *testing.T, dsn string) systemdInstall {
	t.Helper()
	s := newScratchRoot(t)
	s.shim(t, "systemctl")
	for _, d := range []string{"src/deploy/systemd", "src/docs"} {
		if err := os.MkdirAll(s.path(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, binary(t), s.path("src/disbursementd"), 0o755)
	copyFile(t, repoPath(unitFile), s.path("src/"+unitFile), 0o644)
	copyFile(t, repoPath("docs/operator-guide.md"), s.path("src/docs/operator-guide.md"), 0o644)
	steps := fencedBlock(t, "docs/operator-guide.md", "useradd")
	if err := os.WriteFile(s.path("tmp/steps.sh"), []byte(steps), 0o644); err != nil {
		t.Fatal(err)
	}
	install := s.command(`inside /bin/bash -euo pipefail -c 'cd /src && . /tmp/steps.sh'`)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("the install steps failed as written: %v\n%s\nsteps:\n%s", err, out, steps)
	}
	calls, _ := os.ReadFile(s.path("tmp/systemctl.log"))
	if !strings.Contains(string(calls), "enable --now disbursementd") {
		t.Fatalf("the steps never start the service (systemctl calls: %q)", calls)
	}
	u := readUnitDoc(t, s)
	if len(u["EnvironmentFile"]) > 0 {
		t.Errorf("the unit reads an EnvironmentFile %v: its settings would be the service's alone, not the admin's", u["EnvironmentFile"])
	}
	var cfgPath string
	for _, e := range u["Environment"] {
		if v, ok := strings.CutPrefix(e, "DISB_CONFIG="); ok {
			cfgPath = v
		} else if strings.HasPrefix(e, "DISB_") {
			t.Errorf("the unit sets %s itself: an admin's command on the host would not see it; put it in DISB_CONFIG's file", e)
		}
	}
	if cfgPath == "" {
		t.Fatal("the unit names no DISB_CONFIG file")
	}
	// The operator's edit the guide asks for, in that one file.
	addr := freeAddr(t)
	data, err := os.ReadFile(s.path(cfgPath))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "'disb:CHANGE-ME@tcp(127.0.0.1:3306)/disbursement'", "'"+dsn+"'", 1)
	edited = strings.Replace(edited, "addr: 127.0.0.1:8080", "addr: "+addr, 1)
	if edited == string(data) || !strings.Contains(edited, addr) {
		t.Fatalf("the guide's %s no longer holds the DSN and address this test replaces:\n%s", cfgPath, data)
	}
	if err := os.WriteFile(s.path(cfgPath), []byte(edited), 0o640); err != nil {
		t.Fatal(err)
	}
	return systemdInstall{s: s, u: u, addr: addr}
}

// readUnitDoc reads the installed unit and checks its Documentation= file
// was installed too.
func readUnitDoc(t *testing.T, s *scratchRoot) unit {
	t.Helper()
	path := s.path("etc/systemd/system/disbursementd.service")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if doc, ok := strings.CutPrefix(strings.TrimSpace(line), "Documentation=file:"); ok {
			host := s.path(doc)
			if rest, ok := strings.CutPrefix(doc, "/usr/local/"); ok {
				host = filepath.Join(s.local, rest) // bind-mounted there inside
			}
			if _, err := os.Stat(host); err != nil {
				t.Errorf("the unit's Documentation=%s is not installed: %v", doc, err)
			}
		}
	}
	return readUnit(t, path)
}

// serveScript checks the unit, that the service's user cannot write its
// configuration, and then runs ExecStart as systemd would, short of the
// sandbox: as User=/Group=, in WorkingDirectory=, with UMask= and exactly
// the unit's Environment=.
func (sys systemdInstall) serveScript(t *testing.T) string {
	t.Helper()
	u := sys.u
	user, group, wd, umask := u.one(t, "User"), u.one(t, "Group"), u.one(t, "WorkingDirectory"), u.one(t, "UMask")
	if len(u["ExecStartPre"]) > 0 {
		t.Errorf("the unit has ExecStartPre=%v: a step that exits when the database is down keeps serve from starting", u["ExecStartPre"])
	}
	var vars []string
	for _, v := range u["Environment"] {
		vars = append(vars, shellQuote(strings.Trim(v, `"`)))
	}
	return fmt.Sprintf(`
systemd-analyze verify --root="$R" /etc/systemd/system/disbursementd.service
echo "== the service's user and its configuration"
for f in /etc/disbursementd/disbursementd.yaml /etc/disbursementd/keys/new /etc/profile.d/disbursementd.sh; do
  if inside setpriv --reuid=%[1]s --regid=%[2]s --init-groups -- /bin/sh -c "echo x >> $f" 2>/dev/null; then echo "WRITABLE $f"; exit 1; fi
done
echo "== ExecStart"
exec "${IN[@]}" setpriv --reuid=%[1]s --regid=%[2]s --init-groups --no-new-privs --inh-caps=-all -- /usr/bin/env -i -C %[3]s %[4]s /bin/sh -c 'umask %[5]s; exec "$@"' sh %[6]s
`, user, group, wd, strings.Join(vars, " "), umask, u.one(t, "ExecStart"))
}

// testDatabase creates a database on the MariaDB of DISB_TEST_MYSQL_DSN
// and returns a DSN for it.
func testDatabase(t *testing.T) string {
	t.Helper()
	root := os.Getenv("DISB_TEST_MYSQL_DSN")
	need(t, root != "", "DISB_TEST_MYSQL_DSN is not set (test/run starts a MariaDB)")
	cfg, err := mysqldrv.ParseDSN(root)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	name := fmt.Sprintf("disb_deploy_%d", time.Now().UnixNano())
	if _, err := db.Exec("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if db, err := sql.Open("mysql", root); err == nil {
			_, _ = db.Exec("DROP DATABASE " + name)
			_ = db.Close()
		}
	})
	cfg.DBName = name
	return cfg.FormatDSN()
}

// shellQuote quotes s for bash.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, mode); err != nil {
		t.Fatal(err)
	}
}
