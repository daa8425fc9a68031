package testkit

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
)

// RunCLI runs the service's command line in this process (app.CLI, with
// this process's environment and working directory) with stdin, and
// returns its exit code, its output and its errors.
func RunCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := app.CLI(context.Background(), args, app.IO{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}
