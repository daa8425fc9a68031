package process

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lender/disbursementd/test/testkit"
)

// TestConfigCheckAndPrint runs config check and config print through the
// real binary, as a deployment script would: the example file passes
// without touching the store or creating anything; a misspelled variable
// fails (exit 2) naming the variable meant, and so does serve; print
// masks secrets, including one read from a _FILE.
func TestConfigCheckAndPrint(t *testing.T) {
	t.Parallel()
	example, err := filepath.Abs(testkit.RepoPath(t, "disbursementd.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env := testkit.BaseEnv()
	out, err := testkit.CLI(t, dir, env, "", "config", "check", "--config", example)
	if err != nil || !strings.Contains(out, "configuration ok ("+example+")") {
		t.Fatalf("config check on the example file: %v\n%s", err, out)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("config check created %v; it must create nothing", entries)
	}
	// DISB_CONFIG names the file; a store that is not there is not asked.
	dsnFile := filepath.Join(t.TempDir(), "dsn")
	if err := os.WriteFile(dsnFile, []byte("disb:cfg-secret-9@tcp("+testkit.ClosedAddr(t)+")/disb\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	withDB := append(env, "DISB_CONFIG="+example, "DISB_STORE_DRIVER=mysql", "DISB_STORE_DSN_FILE="+dsnFile)
	if out, err := testkit.CLI(t, dir, withDB, "", "config", "check"); err != nil {
		t.Fatalf("config check with an unreachable database: %v\n%s", err, out)
	}
	out, err = testkit.CLI(t, dir, withDB, "", "config", "print")
	if err != nil || strings.Contains(out, "cfg-secret-9") || !strings.Contains(out, `dsn: "disb:***@tcp(`) || !strings.Contains(out, "driver: mysql") {
		t.Fatalf("config print: %v\n%s", err, out)
	}

	for _, args := range [][]string{{"config", "check"}, {"serve"}} {
		out, err := testkit.CLI(t, dir, append(env, "DISB_HTTP_ADRESS=127.0.0.1:0"), "", args...)
		if exitCode(err) != 2 || !strings.Contains(out, "DISB_HTTP_ADRESS (did you mean DISB_HTTP_ADDR?)") {
			t.Errorf("%v with a misspelled variable: exit %d\n%s", args, exitCode(err), out)
		}
	}
	out, err = testkit.CLI(t, dir, append(env, "DISB_STORE_DRIVER=postgres"), "", "config", "check")
	if exitCode(err) != 2 || !strings.Contains(out, "store.driver (DISB_STORE_DRIVER)") {
		t.Errorf("config check with a bad value: exit %d\n%s", exitCode(err), out)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("config check or a refused serve created %v", entries)
	}

	// A SQLite path longer than SQLite can name its files by: refused
	// before anything is created (it opened, then failed at its first
	// write; from 1,025 bytes the driver panicked).
	deep := t.TempDir()
	for len(deep)+201 < 1000 {
		deep = filepath.Join(deep, strings.Repeat("d", 200))
	}
	if err := os.MkdirAll(deep, 0o750); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(deep, strings.Repeat("f", 1017-len(deep)-1))
	out, err = testkit.CLI(t, dir, append(env, "DISB_STORE_DSN="+long), "", "serve")
	if err == nil || !strings.Contains(out, "store.dsn (DISB_STORE_DSN): the SQLite path is 1017 bytes long") {
		t.Errorf("serve on a SQLite path of %d bytes: exit %d\n%s", len(long), exitCode(err), out)
	}
	if entries, _ := os.ReadDir(deep); len(entries) > 0 {
		t.Errorf("a refused SQLite path created %v", entries)
	}
}
