package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/lender/disbursementd/test/soak"
)

// runSoak11 runs contract §11's soak in its long form (test/soak's
// RunWebhooks; the suite's TestWebhookSoakShort is the same for 60 s):
// -soak11 D of load, 3 replicas on a fresh database of -dsn's server,
// reports at -soak-c (16 unless given), every stored report decided
// through the decision API, deliveries to a receiver failing a third and
// away 30 s once, a replica SIGKILLed every 2 minutes (-soak11-quiet: no
// faults, for the latency alone). It prints the counts and writes them,
// with the commit, the command, the machine and the date, to the results
// file. The counts are correctness figures, valid on a busy machine too;
// the latencies are not.
func runSoak11(o options) error {
	if o.dsn == "" {
		return errors.New("-soak11 needs a MariaDB server: -dsn or DISB_TEST_MYSQL_DSN (source test/mariadb.sh && start_mariadb)")
	}
	conc := 16
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "soak-c" {
			conc = o.soakConc
		}
	})
	pl, err := newSoakPlace(o, "soak11", time.Now().Unix())
	if err != nil {
		return err
	}
	dir, dbName, logs := pl.dir, pl.dbName, pl.logs
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	began, load := time.Now(), loadAverage()
	res, err := soak.RunWebhooks(ctx, soak.WebhookConfig{
		Binary: pl.bin, Dir: dir, DSN: pl.dsn, Env: os.Environ(), Oracle: filepath.Join(o.root, "test", "sworacle"),
		Duration: o.soak11, Concurrency: conc, Replicas: max(3, o.replicas), Quiet: o.soak11Quiet, Rate: o.soak11Rate,
		KillEvery: o.soak11Kill, Away: o.soak11Away,
		Logs: logs.writer, Progress: log.Printf,
	})
	logs.close()
	if res == nil {
		return err
	}
	var text strings.Builder
	res.Print(&text)
	kept := fmt.Sprintf("the replicas' logs in %s, the receiver's deliveries in %s, database %s", logs.dir, filepath.Join(dir, "deliveries.jsonl"), dbName)
	return soakOutcome(o, "Soak of decisions and webhooks (contract §11, issue 33)", began, load, text.String(), res.ViolationCount, err, kept, func() error {
		dropDatabase(o.dsn, dbName)
		return os.RemoveAll(dir)
	})
}
