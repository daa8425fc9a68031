package docs

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// TestDocsRestoreDrill runs the operator guide's backup and restore
// blocks as written, to their last step, on each store: reports are
// acknowledged, the database is backed up (backup 1), more reports are
// acknowledged, a second backup is taken (the "later backup" found
// afterwards), more reports still; then the database is lost and
// restored from backup 1, and the service started as the guide says. No
// file of a report that got 200 may be lost: the rows of backup 1 keep
// their files in place, and every later file is in quarantine with its
// content. Restoring backup 2 then brings the files of its rows back in
// place. Only the first lines of each block (paths, the database's name)
// and the wait for the stale bound (the drill runs with
// http.report_timeout 2s, so 8 s instead of 70) come from the test.
func TestDocsRestoreDrill(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "sed", "cp"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed", tool)
		}
	}
	for _, c := range []struct{ name, driver, uploads string }{
		{"sqlite+fs", "sqlite", "fs"}, {"mariadb+fs", "mysql", "fs"},
		{"sqlite+s3", "sqlite", "s3"}, {"mariadb+s3", "mysql", "s3"},
	} {
		t.Run(c.name, func(t *testing.T) { restoreDrill(t, c.driver, c.uploads) })
	}
}

// drill is one run of the drill: where its service keeps rows and files.
type drill struct {
	dir, uploads string // uploads: "" on S3
	env          []string
	vars         map[string]string // the blocks' first lines
	block        map[string]string // backup, restore
	read         func(name string, quarantined bool) ([]byte, error)
	lose         func() // the disaster: the database is gone
}

func restoreDrill(t *testing.T, driver, backend string) {
	d := &drill{dir: t.TempDir(), vars: map[string]string{}, block: map[string]string{}}
	d.env = testkit.BaseEnv("DISB_HTTP_REPORT_TIMEOUT=2s", "DISB_UPLOADS_SWEEP_INTERVAL=1s",
		"PATH="+filepath.Dir(testkit.BinaryPath(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	switch driver {
	case "sqlite":
		requireTool(t, "sqlite3", "sqlite3")
		db := filepath.Join(d.dir, "data", "disbursement.db")
		d.vars["SQLITE"] = db
		d.block["backup"] = fencedShell(t, "docs/operator-guide.md", "# Back up: SQLite")
		d.block["restore"] = fencedShell(t, "docs/operator-guide.md", "# Restore: SQLite")
		d.lose = func() {
			for _, f := range []string{db, db + "-wal", db + "-shm"} {
				if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
		}
	case "mysql":
		requireTool(t, "mysqldump", "mariadb-client")
		dsn := storetest.MustCreateDatabase(t)
		cfg, err := mysqldrv.ParseDSN(dsn)
		if err != nil {
			t.Fatal(err)
		}
		host, port, _ := strings.Cut(cfg.Addr, ":")
		home := t.TempDir() // the operator's ~/.my.cnf
		mycnf := fmt.Sprintf("[client]\nhost=%s\nport=%s\nuser=%s\npassword=%s\n", host, port, cfg.User, cfg.Passwd)
		if err := os.WriteFile(filepath.Join(home, ".my.cnf"), []byte(mycnf), 0o600); err != nil {
			t.Fatal(err)
		}
		// store.lock_wait_timeout must stay below the drill's 2 s report timeout.
		d.env = append(d.env, "HOME="+home, "DISB_STORE_DRIVER=mysql", "DISB_STORE_DSN="+dsn, "DISB_STORE_LOCK_WAIT_TIMEOUT=1s")
		d.vars["DB"] = cfg.DBName
		d.block["backup"] = fencedShell(t, "docs/operator-guide.md", "# Back up: MySQL/MariaDB")
		d.block["restore"] = fencedShell(t, "docs/operator-guide.md", "# Restore: MySQL/MariaDB")
		d.lose = func() {
			db, err := sql.Open("mysql", dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, q := range []string{"DROP DATABASE " + cfg.DBName, "CREATE DATABASE " + cfg.DBName + " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"} {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	switch backend {
	case "fs":
		d.uploads = filepath.Join(d.dir, "data", "uploads")
		d.read = func(name string, q bool) ([]byte, error) {
			if q {
				return os.ReadFile(filepath.Join(d.uploads, ".quarantine", name))
			}
			return os.ReadFile(filepath.Join(d.uploads, name))
		}
	case "s3":
		s3cfg := storetest.S3Config(t)
		cl := storetest.S3Client(s3cfg)
		t.Cleanup(func() { storetest.DeleteS3Prefix(t, cl, s3cfg) })
		d.env = append(d.env, "DISB_UPLOADS_BACKEND=s3", "DISB_UPLOADS_S3_ENDPOINT="+s3cfg.Endpoint, "DISB_UPLOADS_S3_BUCKET="+s3cfg.Bucket,
			"DISB_UPLOADS_S3_PREFIX="+s3cfg.Prefix, "DISB_UPLOADS_S3_REGION="+s3cfg.Region, "DISB_UPLOADS_S3_PATH_STYLE=true",
			"DISB_UPLOADS_S3_ACCESS_KEY_ID="+s3cfg.AccessKeyID, "DISB_UPLOADS_S3_SECRET_ACCESS_KEY="+s3cfg.SecretAccessKey)
		d.read = func(name string, q bool) ([]byte, error) {
			key := s3cfg.Prefix + name
			if q {
				key = s3cfg.Prefix + "quarantine/" + name
			}
			out, err := cl.GetObject(context.Background(), &s3.GetObjectInput{Bucket: &s3cfg.Bucket, Key: aws.String(key)})
			if err != nil {
				return nil, err
			}
			defer out.Body.Close()
			return io.ReadAll(out.Body)
		}
	}
	d.vars["UPLOADS"] = d.uploads

	if out, err := testkit.CLI(t, d.dir, d.env, testkit.Password+"\n", "users", "add", "--user", testkit.Partner, "--nit", testkit.Nit); err != nil {
		t.Fatalf("users add: %v\n%s", err, out)
	}
	p := testkit.StartProcess(t, d.dir, d.env)
	p.MustWaitReady(t)
	in := &testkit.Instance{URL: p.URL}
	tok := in.Token(t, testkit.Partner, testkit.Password)
	files := map[string][]byte{} // every file that got 200, and its content
	send := func(group string, n int) []string {
		var names []string
		for i := range n {
			data := fixture.PDF(2000 + 100*len(files) + i)
			r := in.Report(t, tok, testkit.MustJSON(fixture.FullBody(time.Now().UTC(), fmt.Sprintf("CR-%s-%d", group, i), data)))
			name, _ := r.Body["file"].(string)
			if r.Status != 200 || name == "" {
				t.Fatalf("report %s-%d: %d %s", group, i, r.Status, r.Raw)
			}
			files[name] = data
			names = append(names, name)
		}
		return names
	}
	backups := t.TempDir()
	a := send("A", 3)
	d.run(t, "backup", map[string]string{"BACKUP": filepath.Join(backups, "1")})
	b := send("B", 3)
	d.run(t, "backup", map[string]string{"BACKUP": filepath.Join(backups, "2")})
	c := send("C", 2)
	p.Kill() // the database host dies
	d.lose()
	time.Sleep(8 * time.Second) // a restore starts later than the stale bound (7 s here)

	// Restore backup 1, start as the guide says, wait past the stale bound.
	out := d.run(t, "restore", map[string]string{"BACKUP": filepath.Join(backups, "1")})
	for _, name := range append(append([]string{}, b...), c...) {
		if !strings.Contains(out, "would quarantine orphan_file "+name) {
			t.Errorf("the restore's list does not show %s, acknowledged after the backup:\n%s", name, out)
		}
	}
	p = testkit.StartProcess(t, d.dir, d.env)
	p.MustWaitReady(t)
	out = d.afterStart(t)
	d.mustHold(t, a, false)
	d.mustHold(t, append(append([]string{}, b...), c...), true)
	for _, name := range append(append([]string{}, b...), c...) {
		if !regexp.MustCompile(`(?m)^QUARANTINED ` + regexp.QuoteMeta(name) + `: since .*; no stored report names it$`).MatchString(out) {
			t.Errorf("reconcile does not list %s in quarantine:\n%s", name, out)
		}
	}
	if code, _ := cliCode(t, d, "reconcile", "--restore-quarantined", b[0]); code != 3 {
		t.Errorf("--restore-quarantined of a file no row names: exit %d, want 3", code)
	}
	if code, _ := cliCode(t, d, "reconcile", "--restore-quarantined", "../"+b[0]); code != 2 {
		t.Errorf("--restore-quarantined of a path: exit %d, want 2", code)
	}

	// The later backup turns up: restore it the same way.
	p.Kill()
	out = d.run(t, "restore", map[string]string{"BACKUP": filepath.Join(backups, "2")})
	for _, name := range b {
		if !strings.Contains(out, "restored "+name+" from quarantine") {
			t.Errorf("restoring backup 2 did not bring %s back:\n%s", name, out)
		}
	}
	p = testkit.StartProcess(t, d.dir, d.env)
	p.MustWaitReady(t)
	d.afterStart(t)
	d.mustHold(t, append(append([]string{}, a...), b...), false)
	d.mustHold(t, c, true)
	t.Logf("%d files acknowledged, 0 lost: %d in place after both restores, %d in quarantine (after the last backup)", len(files), len(a)+len(b), len(c))
	for name, data := range files {
		got, err := d.read(name, false)
		if err != nil {
			got, err = d.read(name, true)
		}
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s lost: %v", name, err)
		}
	}
}

// run runs a block of the guide with its first lines set to vars (and
// the drill's own), in bash with -e and -u, where the service runs.
func (d *drill) run(t *testing.T, block string, vars map[string]string) string {
	t.Helper()
	text := d.block[block]
	for k, v := range d.vars {
		text = setVar(t, text, k, v)
	}
	for k, v := range vars {
		text = setVar(t, text, k, v)
	}
	return d.bash(t, text)
}

// afterStart runs the guide's last block once the service has swept
// past the stale bound.
func (d *drill) afterStart(t *testing.T) string {
	t.Helper()
	text := fencedShell(t, "docs/operator-guide.md", "# After the start, past the stale bound")
	if !strings.Contains(text, "\nsleep 70\n") {
		t.Fatalf("the last block no longer waits 70 s:\n%s", text)
	}
	return d.bash(t, strings.Replace(text, "\nsleep 70\n", "\nsleep 9\n", 1))
}

func (d *drill) bash(t *testing.T, script string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", "set -eu\n"+script)
	cmd.Dir = d.dir
	cmd.Env = d.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the block failed: %v\n%s\n--- output:\n%s", err, script, out)
	}
	return string(out)
}

// mustHold fails unless every file holds its content, in place or in
// quarantine.
func (d *drill) mustHold(t *testing.T, names []string, quarantined bool) {
	t.Helper()
	for _, name := range names {
		if _, err := d.read(name, quarantined); err != nil {
			t.Errorf("%s (in quarantine: %v): %v", name, quarantined, err)
		}
	}
}
