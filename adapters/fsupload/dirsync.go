package fsupload

import (
	"os"
	"sync"
)

// dirSync shares directory fsyncs among concurrent callers. A caller
// returns only after an fsync that began after it called (so after its
// link), and one fsync serves every caller waiting when it began: N files
// published together cost one directory fsync, not N. Nothing waits for a
// batch to fill; an fsync starts as soon as none is running.
type dirSync struct {
	dir   *os.File
	fsync func() error // dir.Sync; tests stand in for it

	mu       sync.Mutex
	cond     sync.Cond
	running  bool
	started  uint64 // fsyncs begun
	finished uint64 // the number of the last fsync that ended
	failed   uint64 // the number of the last fsync that failed
	err      error  // its error
}

func newDirSync(dir *os.File) *dirSync {
	d := &dirSync{dir: dir, fsync: dir.Sync}
	d.cond.L = &d.mu
	return d
}

// sync returns once a directory fsync that began after the call has
// ended: nil when every fsync that began after the call and has ended
// succeeded.
func (d *dirSync) sync() error { return d.wait(d.enter()) }

// enter returns the number of the first fsync that begins after now.
func (d *dirSync) enter() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.started + 1
}

// wait returns once fsync number want (or a later one) has ended,
// running one itself when none is. Every fsync numbered want or above
// began after the caller entered. If one of them failed the caller gets
// its error, even when a later one succeeded: after a failed fsync the
// kernel may have dropped what it could not write, so a later success
// proves nothing about the caller's entry.
func (d *dirSync) wait(want uint64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for d.finished < want {
		if d.running {
			d.cond.Wait()
			continue
		}
		d.running = true
		d.started++
		n := d.started
		d.mu.Unlock()
		err := d.fsync()
		d.mu.Lock()
		d.running = false
		d.finished = n
		if err != nil {
			d.failed, d.err = n, err
		}
		d.cond.Broadcast()
	}
	if d.failed >= want {
		return d.err
	}
	return nil
}
