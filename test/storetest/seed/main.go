// Command seed inserts rows in bulk into a migrated store, as
// storetest.SeedRows does: the store suite runs it in a process of its
// own, built without the race detector, because SQLite is Go code here
// and under the detector a million-row seed takes many minutes.
//
//	seed DRIVER DSN USER KEY_PREFIX N
//	seed DRIVER DSN analyze
//
// The second form runs storetest.Analyze (on SQLite the planner's
// statistics of 10^6 rows also take minutes under the detector).
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/lender/disbursementd/test/storetest"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 4 && os.Args[3] == "analyze":
		err = storetest.Analyze(context.Background(), os.Args[1], os.Args[2])
	case len(os.Args) == 6:
		var n int
		if n, err = strconv.Atoi(os.Args[5]); err == nil {
			err = storetest.SeedRows(context.Background(), os.Args[1], os.Args[2], os.Args[3], os.Args[4], n)
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: seed DRIVER DSN USER KEY_PREFIX N | seed DRIVER DSN analyze")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
