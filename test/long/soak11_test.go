package long

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/soak"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// oracleDir holds the standardwebhooks npm package (test/sworacle).
const oracleDir = "../sworacle"

// TestWebhookSoakShort is contract §11's soak (issue 33) in its short
// form (60 s of load; the load tool runs the long one, go run -C
// test/load . -soak11 10m): three replicas of the real binary on one
// MariaDB database, the partner storing reports at c=16 over them, a back
// office deciding each stored report (a third rejected with a reason
// code) through the decision API on each replica's internal listener
// with a client made by backoffice add, the partner's endpoint aimed at a
// receiver on loopback that answers 500 to a third of the deliveries and
// goes away for 10 s, a replica SIGKILLed every 20 s and restarted. Once
// the outbox has drained: every event of every report, decided ones
// included, was answered 2xx at least once, with the body of its type,
// report and status; every POST the receiver got carries a signature the
// standardwebhooks npm package accepts; no event without its state (its
// report missing or in another state) and no state without its event; no
// report with two events of one type; no delivery failed; every report
// acknowledged to the partner decided as the decision API answered.
func TestWebhookSoakShort(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a soak of a minute: not in -short (CI runs it)")
	}
	node, err := soak.Oracle(oracleDir, "")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and " + err.Error())
		}
		t.Skip(err.Error())
	}
	dsn := storetest.MustCreateDatabase(t)
	logs := &processLogs{}
	oracle, err := filepath.Abs(oracleDir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := soak.RunWebhooks(t.Context(), soak.WebhookConfig{
		Binary: testkit.BinaryPath(t), Dir: t.TempDir(), DSN: dsn, Env: os.Environ(), Oracle: oracle, Node: node,
		// Paced: one endpoint's deliveries run at 50-180 a second on CI's
		// two busy cores, below what 16 unpaced clients store and decide,
		// and a backlog only measures its own drain (docs/performance.md).
		Duration: 60 * time.Second, Concurrency: 16, Rate: 20, Away: 10 * time.Second, KillEvery: 20 * time.Second,
		Logs: logs.writer, Progress: t.Logf,
	})
	if res != nil {
		var out strings.Builder
		res.Print(&out)
		t.Logf("webhook soak counts:\n%s", out.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	events := res.EventsDelivered + res.Undelivered
	if res.Undelivered != 0 || res.EventsDelivered == 0 {
		t.Errorf("%d of %d events never answered 2xx at the receiver", res.Undelivered, events)
	}
	if res.DecidedFullyDone != res.Accepted+res.Rejected {
		t.Errorf("%d of %d decided reports have both events delivered", res.DecidedFullyDone, res.Accepted+res.Rejected)
	}
	if res.SignaturesChecked != res.Posts || res.SignaturesValid != res.Posts {
		t.Errorf("standardwebhooks checked %d of %d POSTs and accepted %d", res.SignaturesChecked, res.Posts, res.SignaturesValid)
	}
	if res.EventsWithoutState != 0 || res.StatesWithoutEvent != 0 || res.ExtraEvents != 0 {
		t.Errorf("%d events without their state, %d states without their event, %d extra events",
			res.EventsWithoutState, res.StatesWithoutEvent, res.ExtraEvents)
	}
	if res.OutboxDrained.IsZero() {
		t.Errorf("the outbox stopped draining for %s", res.OutboxBound)
	}
	if res.ViolationCount > 0 {
		t.Errorf("%d violations (listed above)", res.ViolationCount)
	}
	// The soak proved something only if the faults hit deliveries: the
	// receiver answered 500 and went away, replicas died and came back,
	// and reports were stored and decided both ways.
	switch {
	case len(res.Kills) < 2:
		t.Errorf("%d replicas SIGKILLed and restarted, want at least 2", len(res.Kills))
	case res.Answered500 == 0 || res.AwayUntil.IsZero():
		t.Errorf("the receiver answered 500 %d times, away until %v: the faults hit nothing", res.Answered500, res.AwayUntil)
	case res.Accepted < 50 || res.Rejected < 20:
		t.Errorf("only %d accepted and %d rejected reports", res.Accepted, res.Rejected)
	}
	for name, l := range logs.by {
		for _, leak := range testkit.LogLeaks(l.String()) {
			t.Errorf("%s logged a secret: %s", name, leak)
		}
		for _, s := range append(res.Secrets, soak.Password) {
			if strings.Contains(l.String(), s) {
				t.Errorf("%s logged a secret (%.6s…)", name, s)
			}
		}
	}
}

// processLogs keeps the log of each process of a soak in memory, by name.
type processLogs struct {
	mu sync.Mutex
	by map[string]*testkit.SyncBuffer
}

// writer is a soak's Logs: a new buffer for process name.
func (l *processLogs) writer(name string) io.Writer {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by = map[string]*testkit.SyncBuffer{}
	}
	l.by[name] = &testkit.SyncBuffer{}
	return l.by[name]
}
