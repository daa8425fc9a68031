// Command seed inserts rows in bulk into a migrated store, as
// storetest.SeedRows does: the store suite runs it in a process of its
// own, built without the race detector, because SQLite is Go code here
// and under the detector a million-row seed takes many minutes.
//
//	seed DRIVER DSN USER KEY_PREFIX N
//	seed DRIVER DSN analyze
//	seed DRIVER DSN month USER NIT START N
//
// The second form runs storetest.Analyze (on SQLite the planner's
// statistics of 10^6 rows also take minutes under the detector); the
// third storetest.SeedMonth from START (RFC 3339), and prints the
// partner's ledger it returns.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/lender/disbursementd/test/storetest"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 8 && os.Args[3] == "month":
		var month time.Time
		var n int
		if month, err = time.Parse(time.RFC3339Nano, os.Args[6]); err == nil {
			if n, err = strconv.Atoi(os.Args[7]); err == nil {
				var ledger string
				if ledger, err = storetest.SeedMonth(context.Background(), os.Args[1], os.Args[2], os.Args[4], os.Args[5], month, n); err == nil {
					_, err = os.Stdout.WriteString(ledger)
				}
			}
		}
	case len(os.Args) == 4 && os.Args[3] == "analyze":
		err = storetest.Analyze(context.Background(), os.Args[1], os.Args[2])
	case len(os.Args) == 6:
		var n int
		if n, err = strconv.Atoi(os.Args[5]); err == nil {
			err = storetest.SeedRows(context.Background(), os.Args[1], os.Args[2], os.Args[3], os.Args[4], n)
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: seed DRIVER DSN USER KEY_PREFIX N | seed DRIVER DSN analyze | seed DRIVER DSN month USER NIT START N")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
