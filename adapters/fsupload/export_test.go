package fsupload

// ended is the number of directory fsyncs that have ended: they run one at
// a time, numbered from 1, so the last one's number counts them.
func (d *dirSync) ended() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.finished
}
