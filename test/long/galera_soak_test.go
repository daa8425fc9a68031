package long

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/soak"
	"github.com/lender/disbursementd/test/storetest"
)

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
