package e2e

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
	"github.com/lender/disbursementd/test/testkit"
)

// TestProbeAsksReadyz: `disbursementd probe` (Compose's health check)
// fails while nothing listens on http.addr, succeeds once the service is
// ready, asking 127.0.0.1 for an unspecified host (0.0.0.0), and fails
// again after the service stops.
func TestProbeAsksReadyz(t *testing.T) {
	t.Chdir(t.TempDir()) // the embedded default, in a fresh directory
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	t.Setenv("DISB_HTTP_ADDR", "0.0.0.0:"+port)
	if code, _, _ := testkit.RunCLI(t, "", "probe"); code == app.ExitOK {
		t.Fatal("probe passed with nothing listening")
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan int)
	var logs testkit.SyncBuffer
	go func() {
		served <- app.CLI(ctx, []string{"serve"}, app.IO{Stdin: strings.NewReader(""), Stdout: &logs, Stderr: &logs})
	}()
	defer cancel()
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, out, errOut := testkit.RunCLI(t, "", "probe")
		if code == app.ExitOK && out == "ready\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("probe never passed: exit %d, %q %q\n%s", code, out, errOut, logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	cancel()
	select {
	case <-served:
	case <-time.After(45 * time.Second):
		t.Fatal("serve did not stop")
	}
	if code, _, _ := testkit.RunCLI(t, "", "probe"); code == app.ExitOK {
		t.Error("probe passed after the service stopped")
	}
}
