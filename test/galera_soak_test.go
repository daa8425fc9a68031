package test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/soak"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// TestSoakGaleraShort is the Galera soak in its short form (60 s; the
// load tool runs the long one, go run -C test/load . -soak 10m -galera):
// three replicas of the real binary, each writing to its own node of the
// test cluster, at c=32 with the S3 faults, while a node is SIGKILLed and
// restarted by IST. After the final reconcile --apply, every 200 agrees
// with the rows and the files, and every node holds the same rows with
// the same CHECKSUM TABLE.
func TestSoakGaleraShort(t *testing.T) {
	dsns := storetest.MustCreateGaleraDatabase(t)
	dir := os.Getenv("GALERA_DIR")
	if dir == "" {
		t.Fatal("GALERA_DIR is not set: the soak kills and restarts the nodes of test/galera.sh's cluster")
	}
	node := func(verb string) func(int) error {
		return func(n int) error {
			cmd := exec.Command("bash", "galera.sh", verb, fmt.Sprint(n+1))
			cmd.Env = append(os.Environ(), "GALERA_DIR="+dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%v\n%s", err, out)
			}
			return nil
		}
	}
	s3cfg := storetest.S3Config(t)
	t.Cleanup(func() { storetest.DeleteS3Prefix(t, storetest.S3Client(s3cfg), s3cfg) })
	logs := map[string]*testkit.SyncBuffer{}
	var mu sync.Mutex
	res, err := soak.Run(t.Context(), soak.Config{
		Binary: testkit.BinaryPath(t), Dir: t.TempDir(), S3: s3cfg, Env: os.Environ(),
		Duration: 60 * time.Second, Concurrency: 32, KillAt: 20 * time.Second,
		Galera: &soak.Galera{DSNs: dsns, Kill: node("kill"), Restart: node("restart")},
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
		t.Errorf("%d disagreements between the answers, the rows, the files and the nodes (listed above)", res.ViolationCount)
	}
	switch {
	case len(res.NodeKills) == 0 || res.NodeKills[0].Restarted.IsZero():
		t.Error("no node was killed and restarted")
	case len(res.Nodes) != len(dsns):
		t.Errorf("%d nodes compared, want %d", len(res.Nodes), len(dsns))
	case res.Answers["200"] < 100:
		t.Errorf("only %d first 200s", res.Answers["200"])
	}
}
