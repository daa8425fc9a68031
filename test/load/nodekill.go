package main

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/adapters/gormstore"
)

// modeNodeKill is issue 37's node-kill run: 3 replicas of the real
// binary, replica i on node i of test/galera.sh's cluster (with
// -galera-list, on the list of every node, its own first); -kill-n
// reports (W1's body), started evenly over killSpan and spread evenly
// over the replicas, at most -kill-c in flight; node 3 SIGKILLed killAt
// into the run and restarted killDown after; each report tried up to
// killTries times, killPause apart, with the same body (a try after a
// stored one is answered from the idempotency record). It prints, per
// replica, the answers by status and how long after the kill the last
// answer other than 200 came; the reports acknowledged; those missing on
// any node once node 3 is back; and every node's CHECKSUM TABLE.
const modeNodeKill = "node-kill"

const (
	killSpan  = 12 * time.Second
	killAt    = 2 * time.Second
	killDown  = 8 * time.Second
	killTries = 5
	killPause = time.Second
	killNode  = 2 // 0-based: node 3
)

// killTry is one try of one report at one replica.
type killTry struct {
	replica int
	at      time.Time
	status  string // "200", "503", …, or "error"
}

func runNodeKill(o options) error {
	dsns, node, err := galeraCluster(o)
	if err != nil {
		return err
	}
	if len(dsns) != 3 {
		return fmt.Errorf("-mode node-kill wants test/galera.sh's 3 nodes, DISB_TEST_GALERA_DSNS names %d", len(dsns))
	}
	o.dsn, o.replicas = dsns[0], len(dsns)
	o.replicaDSN = func(i int, dbDSN string) string { return replicaDSN(dsns, i, dbDSN, o.galeraList) }
	env, err := newEnvironment(o)
	if err != nil {
		return err
	}
	defer env.close()
	w := workloads(o)[0] // W1: the full report, no file
	began, load := time.Now(), loadAverage()
	var killed, rejoined time.Time
	var killErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(killAt)
		killed = time.Now()
		if killErr = node("kill")(killNode); killErr != nil {
			return
		}
		time.Sleep(killDown)
		killErr = node("restart")(killNode)
		rejoined = time.Now()
	}()
	var (
		mu    sync.Mutex
		tries []killTry
		acked = map[string]bool{}
		wg    sync.WaitGroup
		slots = make(chan struct{}, o.killConc)
	)
	client := &http.Client{Timeout: 30 * time.Second}
	for j := range o.killReports {
		time.Sleep(time.Until(began.Add(killSpan * time.Duration(j) / time.Duration(o.killReports))))
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			replica, credit := j%len(dsns), fmt.Sprintf("K%d-%d", env.run%1_000_000, j)
			body := append(append(append([]byte{}, w.prefix...), credit...), w.suffix...)
			for t := range killTries {
				status := postReport(client, env.svcURLs[replica], env.token, body)
				mu.Lock()
				tries = append(tries, killTry{replica: replica, at: time.Now(), status: status})
				if status == "200" {
					acked[credit] = true
				}
				mu.Unlock()
				if status == "200" {
					return
				}
				if t < killTries-1 {
					time.Sleep(killPause)
				}
			}
		})
	}
	wg.Wait()
	<-done
	if killErr != nil {
		return killErr
	}
	var text strings.Builder
	fmt.Fprintf(&text, "node 3 SIGKILLed %s into the run, Synced again %s after the kill; replicas: %s\n\n",
		killed.Sub(began).Round(time.Millisecond), rejoined.Sub(killed).Round(time.Millisecond), replicaKind(o.galeraList))
	writeKillTries(&text, tries, killed, len(dsns))
	fmt.Fprintf(&text, "\n%d of %d reports acknowledged\n", len(acked), o.killReports)
	violations := 0
	var sums []string
	for i := range dsns {
		missing, sum, err := nodeHolds(replicaDSN(dsns, i, env.svcDSN, false), acked)
		if err != nil {
			return fmt.Errorf("node %d: %w", i+1, err)
		}
		violations += missing
		sums = append(sums, sum)
		fmt.Fprintf(&text, "node %d: %d acknowledged reports missing, CHECKSUM TABLE %s\n", i+1, missing, sum)
	}
	if sums[0] != sums[1] || sums[1] != sums[2] {
		violations++
		text.WriteString("the nodes' checksums differ\n")
	}
	return soakOutcome(o, "Node kill (issue 37)", began, load, text.String(), violations, nil, "the service's logs in "+env.dir, func() error { return nil })
}

// replicaDSN is replica i's store.dsn: dbDSN's database and settings on
// node i, or with list on every node, node i first, then the others in
// order.
func replicaDSN(nodes []string, i int, dbDSN string, list bool) string {
	cfg, err := mysqldrv.ParseDSN(dbDSN)
	if err != nil {
		log.Fatalf("the database's DSN: %v", err)
	}
	var addrs []string
	for k := range nodes {
		n, err := mysqldrv.ParseDSN(nodes[(i+k)%len(nodes)])
		if err != nil {
			log.Fatalf("DISB_TEST_GALERA_DSNS: %v", err)
		}
		addrs = append(addrs, n.Addr)
		if !list {
			break
		}
	}
	cfg.Addr = strings.Join(addrs, ",")
	return cfg.FormatDSN()
}

func replicaKind(list bool) string {
	if list {
		return "each on the list of every node, its own first (-galera-list)"
	}
	return "each on its own node"
}

// postReport sends one report to a replica and returns the status.
func postReport(client *http.Client, url, token string, body []byte) string {
	req, err := http.NewRequest("POST", url+w1Path, bytes.NewReader(body))
	if err != nil {
		return "error"
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authentication-Type", "bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return "error"
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return fmt.Sprint(resp.StatusCode)
}

// w1Path is where W1's reports go (the legacy POST).
var w1Path = workload{}.path()

// writeKillTries writes, per replica, the answers by status and the
// answers other than 200 after the kill: how many, and how long after it
// the first and the last came.
func writeKillTries(b *strings.Builder, tries []killTry, killed time.Time, replicas int) {
	b.WriteString("| replica | tries | answers | not 200 after the kill | first, last (s after the kill) |\n|---|---|---|---|---|\n")
	for r := range replicas {
		by := map[string]int{}
		n, bad := 0, 0
		var first, last time.Time
		for _, t := range tries {
			if t.replica != r {
				continue
			}
			n++
			by[t.status]++
			if t.status == "200" || t.at.Before(killed) {
				continue
			}
			bad++
			if first.IsZero() {
				first = t.at
			}
			last = t.at
		}
		var codes []string
		for s, c := range by {
			codes = append(codes, fmt.Sprintf("%s: %d", s, c))
		}
		sort.Strings(codes)
		span := "-"
		if bad > 0 {
			span = fmt.Sprintf("%.1f, %.1f", first.Sub(killed).Seconds(), last.Sub(killed).Seconds())
		}
		fmt.Fprintf(b, "| %d (node %d first) | %d | %s | %d | %s |\n", r+1, r+1, n, strings.Join(codes, ", "), bad, span)
	}
}

// nodeHolds counts the acknowledged credits the node of dsn lacks, and
// returns its staging table's CHECKSUM TABLE.
func nodeHolds(dsn string, acked map[string]bool) (int, string, error) {
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return 0, "", err
	}
	defer db.Close()
	rows, err := db.Query("SELECT numero_credito FROM " + gormstore.StagingTable)
	if err != nil {
		return 0, "", err
	}
	held := map[string]bool{}
	for rows.Next() {
		var c sql.NullString
		if err := rows.Scan(&c); err != nil {
			return 0, "", errors.Join(err, rows.Close())
		}
		held[c.String] = true
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return 0, "", err
	}
	missing := 0
	for c := range acked {
		if !held[c] {
			missing++
		}
	}
	var table, sum string
	if err := db.QueryRow("CHECKSUM TABLE "+gormstore.StagingTable).Scan(&table, &sum); err != nil {
		return 0, "", err
	}
	return missing, sum, nil
}
