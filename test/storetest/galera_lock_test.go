package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestGaleraLockKeepsTheKillerAlone: while a test holds the cluster for
// killing nodes, another process cannot take it even shared; while a test
// uses the cluster, the killer cannot take it; both give it back when
// their test ends; and another test of the killer's own process waits
// for it too.
func TestGaleraLockKeepsTheKillerAlone(t *testing.T) {
	parent := t
	t.Setenv(EnvGaleraDSNs, "root@tcp(192.0.2.1:3306)/,root@tcp(192.0.2.2:3306)/")
	sum := sha256.Sum256([]byte(os.Getenv(EnvGaleraDSNs)))
	path := filepath.Join(os.TempDir(), "disb-galera-"+hex.EncodeToString(sum[:6])+".lock")
	// try takes the lock as another process would (a file of its own) and
	// lets it go at once; it says whether it could.
	try := func(how int) bool {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB) == nil
	}
	t.Run("killer", func(t *testing.T) {
		HoldGaleraNodes(t)
		if try(syscall.LOCK_SH) {
			t.Fatal("another process took the cluster shared while its nodes may be killed")
		}
		GaleraDSNs(t) // the killer's own use of the cluster does not wait on itself
	})
	if !try(syscall.LOCK_EX) {
		t.Fatal("the killer's lock outlived its test")
	}
	t.Run("user", func(t *testing.T) {
		GaleraDSNs(t)
		if try(syscall.LOCK_EX) {
			t.Fatal("another process took the cluster for killing nodes while a test uses it")
		}
		if !try(syscall.LOCK_SH) {
			t.Fatal("another process could not use the cluster beside this test")
		}
	})
	if !try(syscall.LOCK_EX) {
		t.Fatal("the user's lock outlived its test")
	}
	// Another test of the same process (the store suite runs its Galera
	// tests side by side with the one that kills nodes) waits too.
	took := make(chan struct{})
	t.Run("killer beside another test of the process", func(t *testing.T) {
		HoldGaleraNodes(t)
		go func() {
			holdGalera(namedTB{TB: parent, name: "TestAnotherGaleraTest"}, false)
			close(took)
		}()
		select {
		case <-took:
			t.Fatal("another test of this process took the cluster while its nodes may be killed")
		case <-time.After(300 * time.Millisecond):
		}
	})
	select {
	case <-took:
	case <-time.After(10 * time.Second):
		t.Fatal("the other test did not get the cluster once the killer ended")
	}
}

// namedTB is a test of another name, for the lock's owner check.
type namedTB struct {
	testing.TB
	name string
}

func (n namedTB) Name() string { return n.name }
