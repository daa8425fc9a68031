package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// The test cluster is shared by the test binaries of a run, which go test
// runs side by side, and one test (the Galera soak) kills and restarts
// its nodes. Every test that uses the cluster holds a lock on it shared,
// and that one test holds it exclusive: no test sees a node down that it
// did not take down itself. The lock is a flock on a file named by the
// cluster's DSNs, so it holds across processes and needs no server.
var galeraLock struct {
	sync.Mutex
	owner string // the test of this process that holds the lock exclusive ("": none)
}

// holdGalera takes the cluster's lock for the rest of tb, waiting until
// it is free: shared, or exclusive when nodes will be killed. While a
// test of this process holds it exclusive, that test's own further calls
// (its subtests' too) find it held; the process's other tests wait for
// it as another process's do (a lock of their own on the file).
func holdGalera(tb testing.TB, exclusive bool) {
	tb.Helper()
	galeraLock.Lock()
	owner := galeraLock.owner
	galeraLock.Unlock()
	if owner != "" && (tb.Name() == owner || strings.HasPrefix(tb.Name(), owner+"/")) {
		return
	}
	sum := sha256.Sum256([]byte(os.Getenv(EnvGaleraDSNs)))
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "disb-galera-"+hex.EncodeToString(sum[:6])+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		tb.Fatalf("the test cluster's lock: %v", err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		_ = f.Close()
		tb.Fatalf("the test cluster's lock: %v", err)
	}
	if exclusive {
		galeraLock.Lock()
		galeraLock.owner = tb.Name()
		galeraLock.Unlock()
	}
	tb.Cleanup(func() {
		if exclusive {
			galeraLock.Lock()
			galeraLock.owner = ""
			galeraLock.Unlock()
		}
		_ = f.Close() // and the lock with it
	})
}

// HoldGaleraNodes is for the test that kills and restarts the test
// cluster's nodes: it waits until no other test uses the cluster, and
// keeps them waiting until it ends. Call it before anything else of the
// cluster.
func HoldGaleraNodes(tb testing.TB) {
	tb.Helper()
	galeraDSNs(tb) // skips, or fails in CI, without a cluster
	holdGalera(tb, true)
	tellGaleraLogsOnFailure(tb)
}
