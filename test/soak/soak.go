// Package soak runs issue 17's soak: replicas of the real binary on one
// MariaDB through the MySQL fault proxy (random COMMIT delays) and one S3
// bucket through the S3 fault proxy (slow, failed and cut PUTs), the
// sweep every second, reports with and without files at a fixed
// concurrency (some sharing credit numbers, some retried with the same
// Idempotency-Key after a 503, some sent twice), one replica SIGKILLed
// and restarted mid-run; then a final reconcile --apply, and every answer
// compared with the rows and the files. The test suite runs it short
// (test/long/soak_test.go), the load tool long (go run -C test/load . -soak 10m).
package soak

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lender/disbursementd/adapters/s3upload"
)

// Config is one soak: what it runs against, and how hard.
type Config struct {
	Binary string          // the disbursementd binary
	Dir    string          // a working directory of its own (replicas' directories, the key)
	DSN    string          // an empty database of its own, reached directly (go-sql-driver DSN)
	S3     s3upload.Config // the bucket under a prefix of its own, reached directly
	Env    []string        // the environment every process starts from (os.Environ())
	// Logs is where each process's log goes, by name (replica-0, …).
	Logs func(name string) io.Writer
	// Progress receives a line at each step (t.Logf, log.Printf).
	Progress func(format string, args ...any)

	Duration      time.Duration // of load; new reports stop then, and the started ones finish
	Concurrency   int           // clients sending reports (default 32)
	Replicas      int           // default 2
	ReportTimeout time.Duration // http.report_timeout (default 3s: delayed COMMITs outlive it)
	KillAt        time.Duration // from the load's start, when replica 1 is SIGKILLed (default 40 % of Duration)
	Down          time.Duration // how long it stays down before its restart (default 5s)
	Drain         time.Duration // how long started reports may take to finish once faults stop (default 2m)
	Faults        Faults
	// Galera, when set, runs the soak on a Galera cluster (galera.go).
	Galera *Galera
}

// Faults is what the proxies do; each share is a probability per
// statement or per object PUT.
type Faults struct {
	CommitShare float64       // COMMITs held (default 0.1)
	CommitMax   time.Duration // each for a uniform 0..CommitMax (default 15s)
	PutFail     float64       // object PUTs answered 500 or 503 without reaching the server (default 0.05)
	PutCut      float64       // object PUTs whose connection is closed without an answer (default 0.02)
	PutSlow     float64       // object PUTs that reach the server late (default 0.05)
	PutLate     float64       // object PUTs stored at once and answered late (default 0.05)
	PutDelayMax time.Duration // a slow or late PUT's delay, uniform 0..PutDelayMax (default 2 × ReportTimeout)
}

// complete fills the defaults and checks what would fail late.
func (c *Config) complete() error {
	if g := c.Galera; g != nil {
		if len(g.DSNs) < 2 || g.Kill == nil || g.Restart == nil {
			return errors.New("soak: Galera needs a DSN per node (at least 2), Kill and Restart")
		}
		c.DSN, c.Replicas = g.DSNs[0], len(g.DSNs)
		if g.Every <= 0 {
			g.Every = 2 * time.Minute
		}
		if c.KillAt <= 0 { // a kill every Every from the first on: 4 in 10 minutes
			c.KillAt = min(g.Every, c.Duration*2/5)
		}
	}
	switch {
	case c.Binary == "" || c.Dir == "" || c.DSN == "":
		return errors.New("soak: Binary, Dir and DSN are required")
	case c.S3.Endpoint == "" || c.S3.Bucket == "" || c.S3.Prefix == "":
		return errors.New("soak: the S3 endpoint, bucket and a prefix of the soak's own are required")
	case c.Duration <= 0:
		return errors.New("soak: Duration must be positive")
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	defShare := func(s *float64, v float64) {
		if *s == 0 {
			*s = v
		}
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 32
	}
	if c.Replicas < 2 {
		c.Replicas = 2
	}
	def(&c.ReportTimeout, 3*time.Second)
	def(&c.KillAt, c.Duration*2/5)
	def(&c.Down, 5*time.Second)
	def(&c.Drain, 2*time.Minute)
	f := &c.Faults
	defShare(&f.CommitShare, 0.1)
	def(&f.CommitMax, 15*time.Second)
	defShare(&f.PutFail, 0.05)
	defShare(&f.PutCut, 0.02)
	defShare(&f.PutSlow, 0.05)
	defShare(&f.PutLate, 0.05)
	def(&f.PutDelayMax, 2*c.ReportTimeout)
	if c.Logs == nil {
		c.Logs = func(string) io.Writer { return io.Discard }
	}
	if c.Progress == nil {
		c.Progress = func(string, ...any) {}
	}
	return nil
}

// staleBound is the serve's stale bound for the soak's report timeout
// (http.report_timeout + 5 s): nothing younger is swept.
func (c *Config) staleBound() time.Duration { return c.ReportTimeout + 5*time.Second }

// Run runs the soak and returns what it counted and every disagreement
// it found between the answers, the rows and the files (Result.Violations).
// An error means the soak could not run (a replica did not start, the
// database did not answer), not that it found something.
func Run(ctx context.Context, c Config) (*Result, error) {
	if err := c.complete(); err != nil {
		return nil, err
	}
	s, err := setUp(ctx, &c)
	if err != nil {
		return nil, err
	}
	defer s.tearDown()
	if err := s.load(ctx); err != nil {
		return s.res, err
	}
	if c.Galera != nil {
		s.readConflicts(ctx)
	}
	if err := s.settle(ctx); err != nil {
		return s.res, err
	}
	if err := s.finalReconcile(); err != nil {
		return s.res, err
	}
	if err := s.verify(ctx); err != nil {
		return s.res, fmt.Errorf("compare answers with rows and files: %w", err)
	}
	s.res.Finished = time.Now()
	return s.res, nil
}
