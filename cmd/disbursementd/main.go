// Command disbursementd is the partner disbursement service. See
// `disbursementd help` and README.md.
package main

import (
	"context"
	"os"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
)

func main() {
	os.Exit(app.CLI(context.Background(), os.Args[1:], app.IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}))
}
