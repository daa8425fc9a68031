package test

import (
	"io"
	"os"
	"strings"
	"sync"
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
	dsn := storetest.MustCreateDatabase(t)
	s3cfg := storetest.S3Config(t)
	t.Cleanup(func() { storetest.DeleteS3Prefix(t, storetest.S3Client(s3cfg), s3cfg) })
	logs := map[string]*testkit.SyncBuffer{}
	var mu sync.Mutex
	res, err := soak.Run(t.Context(), soak.Config{
		Binary: testkit.BinaryPath(t), Dir: t.TempDir(), DSN: dsn, S3: s3cfg, Env: os.Environ(),
		Duration: 60 * time.Second, Concurrency: 32, Replicas: 2,
		Logs: func(name string) io.Writer {
			mu.Lock()
			defer mu.Unlock()
			logs[name] = &testkit.SyncBuffer{}
			return logs[name]
		},
		Progress: t.Logf,
	})
	if res != nil {
		var out strings.Builder
		res.Print(&out)
		t.Logf("soak counts:\n%s", out.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.ViolationCount > 0 {
		t.Errorf("%d disagreements between the answers, the rows and the files (listed above)", res.ViolationCount)
	}
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
