// Command seed inserts rows in bulk into a migrated store, as
// storetest.SeedRows does: the store suite runs it in a process of its
// own, built without the race detector, because SQLite is Go code here
// and under the detector a million-row seed takes many minutes.
//
//	seed DRIVER DSN USER KEY_PREFIX N
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/lender/disbursementd/test/storetest"
)

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: seed DRIVER DSN USER KEY_PREFIX N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[5])
	if err == nil {
		err = storetest.SeedRows(context.Background(), os.Args[1], os.Args[2], os.Args[3], os.Args[4], n)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
