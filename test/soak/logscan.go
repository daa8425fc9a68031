package soak

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"

	"github.com/lender/disbursementd/ports"
)

// logScan passes a replica's log on and reads it line by line: what its
// sweeps removed, and every line saying a stored report's file is missing.
type logScan struct {
	w       io.Writer
	mu      sync.Mutex
	partial []byte
	swept   map[string]int64 // by finding kind, summed over the sweeps' lines
	missing []string         // the lines
}

func newLogScan(w io.Writer) *logScan { return &logScan{w: w, swept: map[string]int64{}} }

func (l *logScan) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.line(string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
	return l.w.Write(p)
}

// The service's messages the scan reads (cmd/disbursementd/app/sweep.go,
// ports.Reports.replay).
const (
	msgSwept   = "sweep cleared what a crash left"
	msgMissing = "a stored report's file is missing"
)

func (l *logScan) line(s string) {
	if strings.Contains(s, msgMissing) {
		l.missing = append(l.missing, s)
	}
	if !strings.Contains(s, msgSwept) {
		return
	}
	var rec map[string]any
	if json.Unmarshal([]byte(s), &rec) != nil {
		return
	}
	for _, kind := range ports.FindingKinds {
		if n, ok := rec[kind].(float64); ok {
			l.swept[kind] += int64(n)
		}
	}
}

// sweptAndMissing sums every process's scan.
func (f *fleet) sweptAndMissing() (map[string]int64, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	swept := map[string]int64{}
	var missing []string
	for _, l := range f.logs {
		l.mu.Lock()
		for k, n := range l.swept {
			swept[k] += n
		}
		missing = append(missing, l.missing...)
		l.mu.Unlock()
	}
	return swept, missing
}
