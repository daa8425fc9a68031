package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"
	"sync"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/test/storetest"
)

// The list flood (issue 25's reproduction): -list-c clients of one
// partner, which has -list-rows reports, each asking as fast as it is
// answered for GET /v1/reports?limit=1&received_from=1970-01-01 (a page
// of the whole range) and giving up after -list-timeout, as a client with
// a short timeout would; the measured reports are another partner's.
// Its requests are counted by how they ended: 200, 429 past the
// partner's look-up rate, 503 with its look-up slots full, or "gave up".
// Afterwards, once the clients have been gone 10 s, the statements still
// running for the service are counted: on MySQL in the server's
// processlist, on both stores as the service's look-up connections in use
// (its /metrics).
const (
	modeListFlood = "list-flood"
	listUser      = "loadtest-lister"
	listPath      = "/v1/reports?limit=1&received_from=1970-01-01"
)

// seedListFlood gives the flooding partner its rows, before anything is
// measured, so that the reports alone and beside the flood meet the same
// table.
func (e *environment) seedListFlood() error {
	if err := e.addUser(listUser, listNIT); err != nil {
		return err
	}
	start := time.Now()
	ctx := context.Background()
	if err := storetest.SeedRows(ctx, e.driver, e.svcDSN, listUser, "flood-", e.o.listRows); err != nil {
		return err
	}
	if err := storetest.Analyze(ctx, e.driver, e.svcDSN); err != nil {
		return err
	}
	log.Printf("%s: %d rows of %s seeded in %s", modeListFlood, e.o.listRows, listUser, time.Since(start).Round(time.Second))
	return nil
}

// listFlood runs -list-c clients of full-range lists until stop.
func (e *environment) listFlood(stop <-chan struct{}, out *attackOutcomes, wg *sync.WaitGroup) error {
	tok, err := e.tokenFor(listUser)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: e.o.listConc}, Timeout: e.o.listTimeout}
	for range e.o.listConc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				req, _ := http.NewRequest("GET", e.svcURL+listPath, nil)
				req.Header.Set("Authorization", "Bearer "+tok)
				resp, err := client.Do(req)
				if err != nil {
					out.add("gave up")
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				out.add(fmt.Sprint(resp.StatusCode))
				if resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusTooManyRequests {
					// A 503 (slots full) or a 429 (the partner's rate
					// spent) comes back at once: without a pause these
					// clients would spin on the CPU that the service and
					// the measured reports share with them. They pause
					// 10 ms, not Retry-After: an attacker need not wait.
					time.Sleep(10 * time.Millisecond)
				}
			}
		}()
	}
	return nil
}

// leftRunning waits 10 s after the flood's clients have gone and says
// what still runs for the service.
func (e *environment) leftRunning() (string, error) {
	time.Sleep(10 * time.Second)
	inUse, what, err := e.lookupConnsInUse()
	if err != nil {
		return "", err
	}
	text := fmt.Sprintf("10 s after the flood's clients had gone: %d %s of the service in use", inUse, what)
	if e.driver != "mysql" {
		return text + ".\n", nil
	}
	n, err := e.serverStatements()
	if err != nil {
		return "", err
	}
	return text + fmt.Sprintf(", %d statements on the service's database in the server's processlist.\n", n), nil
}

// lookupConnsInUse reads go_sql_in_use_connections of the look-up pool
// (store_lookup on MySQL, store_read on SQLite) from /metrics. A build
// without that pool (one from before issue 25, measured as "before") has
// its look-ups on a shared pool: then it is the sum over every pool, and
// the text says so.
func (e *environment) lookupConnsInUse() (int, string, error) {
	pool := "store_read"
	if e.driver == "mysql" {
		pool = "store_lookup"
	}
	resp, err := http.Get(e.svcURL + "/metrics")
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	const metric = `go_sql_in_use_connections{db_name="`
	want := metric + pool + `"} `
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	all, pools := 0, 0
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, want); ok {
			var n int
			_, err := fmt.Sscan(v, &n)
			return n, "look-up connections", err
		}
		if rest, ok := strings.CutPrefix(line, metric); ok {
			if _, v, ok := strings.Cut(rest, "} "); ok {
				var n int
				if _, err := fmt.Sscan(v, &n); err != nil {
					return 0, "", err
				}
				all, pools = all+n, pools+1
			}
		}
	}
	if err := sc.Err(); err != nil {
		return 0, "", err
	}
	if pools == 0 {
		return 0, "", fmt.Errorf("/metrics has no %s", strings.TrimSpace(want))
	}
	return all, fmt.Sprintf("connections (this build has no %s pool; all %d pools)", pool, pools), nil
}

// serverStatements counts the statements running on the service's
// database, this query apart.
func (e *environment) serverStatements() (int, error) {
	cfg, err := mysqldrv.ParseDSN(e.svcDSN)
	if err != nil {
		return 0, err
	}
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int
	err = db.QueryRow(`SELECT COUNT(*) FROM information_schema.processlist
		WHERE db = ? AND command = 'Query' AND id <> CONNECTION_ID()`, cfg.DBName).Scan(&n)
	return n, err
}
