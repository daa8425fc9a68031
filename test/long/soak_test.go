package long

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/soak"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// TestSoakShort is issue 17's soak in its short form (60 s of load; the
// load tool runs the long one, go run -C test/load . -soak 10m): two
// replicas of the real binary on MariaDB through the MySQL fault proxy
// (a share of COMMITs held 0-15 s, past the 3 s report timeout) and on
// versitygw through the S3 fault proxy (object PUTs failed, cut, slow,
// answered late), the sweep every second, reports with and without files
// at c=32 (some sharing credit numbers, some retried with their key after
// a 503, some sent twice), one replica SIGKILLed and restarted mid-run.
// After a final reconcile --apply, every 200 agrees with the rows and the
// files: no acknowledged report without its row or its file, no second
// row for a key or a report, no file without its row, no row without its
// file, and nothing left for reconcile to find.
func TestSoakShort(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a soak of a minute: not in -short (CI runs it)")
	}
	dsn := storetest.MustCreateDatabase(t)
	res, logs := runSoak(t, soak.Config{DSN: dsn, Replicas: 2}, "the answers, the rows and the files")
	for name, l := range logs {
		for _, leak := range testkit.LogLeaks(l.String()) {
			t.Errorf("%s logged a secret: %s", name, leak)
		}
		if strings.Contains(l.String(), soak.Password) {
			t.Errorf("%s logged the partner's password", name)
		}
	}
	// The soak proved something only if the faults and the kill hit
	// reports: COMMITs outlived their reports, PUTs failed, a replica died
	// with requests in flight, and reports were stored.
	switch {
	case res.CommitsHeldPastTimeout == 0:
		t.Error("no COMMIT was held past the report timeout")
	case res.Answers["503 outcome_unknown"] == 0:
		t.Error("no report got 503 outcome_unknown: no COMMIT outlived its report")
	case res.PUTFaults["failed"] == 0 || res.PUTFaults["answered late"] == 0:
		t.Errorf("object PUT faults %v: the S3 faults hit nothing", res.PUTFaults)
	case res.Answers["no answer"] == 0 || res.Killed.IsZero() || res.Restarted.IsZero():
		t.Error("the SIGKILL cut no request, or the replica was not restarted")
	case res.Answers["200"] < 100 || res.RowsWithFile == 0 || res.Modes["twin"] == 0 || res.Modes["again"] == 0 || res.Shared == 0:
		t.Errorf("too little of the mix was stored: %d first 200s, %d rows with a file, modes %v, %d sharing credits",
			res.Answers["200"], res.RowsWithFile, res.Modes, res.Shared)
	}
}

// TestSoakGaleraShort is the Galera soak in its short form (60 s; the
// load tool runs the long one, go run -C test/load . -soak 10m -galera):
// three replicas of the real binary, each writing to its own node of the
// test cluster, at c=32 with the S3 faults, while a node is SIGKILLed and
// restarted by IST. After the final reconcile --apply, every 200 agrees
// with the rows and the files, and every node holds the same rows with
// the same CHECKSUM TABLE.
func TestSoakGaleraShort(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a soak of a minute: not in -short (CI runs it)")
	}
	storetest.HoldGaleraNodes(t) // no other test uses the cluster meanwhile
	dsns := storetest.MustCreateGaleraDatabase(t)
	dir := os.Getenv("GALERA_DIR")
	if dir == "" {
		t.Fatal("GALERA_DIR is not set: the soak kills and restarts the nodes of test/galera.sh's cluster")
	}
	node := func(verb string) func(int) error {
		return func(n int) error {
			cmd := exec.Command("bash", filepath.Join("..", "galera.sh"), verb, fmt.Sprint(n+1))
			cmd.Env = append(os.Environ(), "GALERA_DIR="+dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%v\n%s", err, out)
			}
			return nil
		}
	}
	res, _ := runSoak(t, soak.Config{KillAt: 20 * time.Second,
		Galera: &soak.Galera{DSNs: dsns, Kill: node("kill"), Restart: node("restart")}},
		"the answers, the rows, the files and the nodes")
	switch {
	case len(res.NodeKills) == 0 || res.NodeKills[0].Restarted.IsZero():
		t.Error("no node was killed and restarted")
	case len(res.Nodes) != len(dsns):
		t.Errorf("%d nodes compared, want %d", len(res.Nodes), len(dsns))
	case res.Answers["200"] < 100:
		t.Errorf("only %d first 200s", res.Answers["200"])
	}
}

// runSoak runs a short soak (a minute of load at c=32) of the real binary
// as cfg sets it up, on an S3 prefix of its own, and fails the test on an
// error or on a disagreement between what compared names; it returns the
// result, whose counts it logs, and each process's log.
func runSoak(t *testing.T, cfg soak.Config, compared string) (*soak.Result, map[string]*testkit.SyncBuffer) {
	t.Helper()
	cfg.S3 = storetest.S3Config(t)
	t.Cleanup(func() { storetest.DeleteS3Prefix(t, storetest.S3Client(cfg.S3), cfg.S3) })
	logs := &processLogs{}
	cfg.Binary, cfg.Dir, cfg.Env = testkit.BinaryPath(t), t.TempDir(), os.Environ()
	cfg.Duration, cfg.Concurrency = 60*time.Second, 32
	cfg.Logs = logs.writer
	cfg.Progress = t.Logf
	res, err := soak.Run(t.Context(), cfg)
	if res != nil {
		var out strings.Builder
		res.Print(&out)
		t.Logf("soak counts:\n%s", out.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.ViolationCount > 0 {
		t.Errorf("%d disagreements between %s (listed above)", res.ViolationCount, compared)
	}
	return res, logs.by
}
