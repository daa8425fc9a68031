package fsupload

import (
	"errors"
	"testing"
)

// fakeFsync makes a dirSync whose fsyncs start on demand: each one
// announces its number on started and ends with what release sends.
func fakeFsync(t *testing.T) (d *dirSync, started chan uint64, release chan error) {
	t.Helper()
	started, release = make(chan uint64), make(chan error)
	d = newDirSync(nil)
	n := uint64(0)
	d.fsync = func() error {
		n++
		started <- n
		return <-release
	}
	return d, started, release
}

func waitAsync(d *dirSync, want uint64) chan error {
	done := make(chan error, 1)
	go func() { done <- d.wait(want) }()
	return done
}

func TestDirSyncWaitsForAnFsyncThatBeganAfterTheCall(t *testing.T) {
	d, started, release := fakeFsync(t)
	a := waitAsync(d, d.enter())
	if n := <-started; n != 1 {
		t.Fatalf("first fsync numbered %d", n)
	}
	// B links while fsync 1 runs: fsync 1 may not cover its entry.
	b := waitAsync(d, d.enter())
	release <- nil
	if err := <-a; err != nil {
		t.Fatal(err)
	}
	select {
	case <-b:
		t.Fatal("B returned on an fsync that began before it called")
	case n := <-started:
		if n != 2 {
			t.Fatalf("second fsync numbered %d", n)
		}
	}
	select {
	case <-b:
		t.Fatal("B returned before its fsync ended")
	default:
	}
	release <- nil
	if err := <-b; err != nil {
		t.Fatal(err)
	}
}

func TestDirSyncOneFsyncServesEveryoneWaiting(t *testing.T) {
	d, started, release := fakeFsync(t)
	first := waitAsync(d, d.enter())
	<-started
	var waiting []chan error
	for range 8 {
		waiting = append(waiting, waitAsync(d, d.enter()))
	}
	release <- nil
	<-first
	<-started // one fsync for all eight
	release <- nil
	for _, w := range waiting {
		if err := <-w; err != nil {
			t.Fatal(err)
		}
	}
	if got := d.ended(); got != 2 {
		t.Fatalf("%d fsyncs for 9 callers in two groups, want 2", got)
	}
}

func TestDirSyncReportsAFailureToEveryoneItCovered(t *testing.T) {
	d, started, release := fakeFsync(t)
	boom := errors.New("EIO")
	a := waitAsync(d, d.enter())
	<-started
	b := waitAsync(d, d.enter()) // waits for fsync 2
	release <- nil
	<-a
	<-started
	c := d.enter() // after fsync 2 began: needs fsync 3
	release <- boom
	if err := <-b; !errors.Is(err, boom) {
		t.Fatalf("B got %v, want the failure of its fsync", err)
	}
	cDone := waitAsync(d, c)
	<-started
	release <- nil
	if err := <-cDone; err != nil {
		t.Fatalf("C got %v; its own fsync succeeded", err)
	}
	// A caller whose window holds a failure gets it, even after a later
	// success.
	if err := d.wait(2); !errors.Is(err, boom) {
		t.Fatalf("wait(2) after fsync 2 failed = %v", err)
	}
}
