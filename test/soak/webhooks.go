package soak

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// WebhookConfig is contract §11's soak (issue 33): Replicas of the real
// binary on one MariaDB database, the partner storing reports at
// Concurrency (spread over the replicas), a back office deciding every
// stored report through the decision API (each replica's
// http.metrics_addr) with a client made by backoffice add, and the
// partner's one webhook endpoint aimed at a receiver on loopback that
// answers 500 to FailShare of the deliveries and goes away (its listener
// closed) for Away once; a replica is SIGKILLed every KillEvery and
// restarted. After the load, the outbox drains; then the database and the
// receiver's log are compared (WebhookResult) and every delivery the
// receiver got is checked by the standardwebhooks npm package, an
// implementation that is not ours (test/sworacle). The test suite runs it
// for 60 s (test/long), the load tool for 10 minutes
// (go run -C test/load . -soak11 10m).
type WebhookConfig struct {
	Binary string   // the disbursementd binary
	Dir    string   // a working directory of its own
	DSN    string   // an empty database of its own (go-sql-driver DSN)
	Env    []string // the environment every process starts from (os.Environ())
	// Oracle is test/sworacle's directory, its standardwebhooks package
	// installed (bash test/sworacle/install); Node runs it (default
	// "node" on PATH).
	Oracle, Node string
	// Logs is where each process's log goes, by name (replica-0, …).
	Logs func(name string) io.Writer
	// Progress receives a line at each step (t.Logf, log.Printf).
	Progress func(format string, args ...any)

	Duration    time.Duration // of load; new reports stop then
	Concurrency int           // the partner's clients (default 16)
	// Rate paces the partner's clients to this many new reports a second
	// in all; 0 sends each as soon as the last is answered (and decided).
	Rate        float64
	Deciders    int           // the back office's clients (default 8)
	Replicas    int           // default 3
	KillEvery   time.Duration // a replica SIGKILLed (in turn) every this (default 2m)
	Down        time.Duration // how long it stays down (default 5s)
	AwayAt      time.Duration // from the load's start, when the receiver goes away (default mid-run)
	Away        time.Duration // how long it stays away (default 30s)
	FailShare   float64       // deliveries the receiver answers 500 (default 1/3)
	RejectEvery int64         // reports whose id is a multiple of this are rejected, the rest accepted (default 3)
	ReasonCode  string        // the rejections' reason_code (default documento_ilegible)
	// RetrySchedule is webhooks.retry_schedule (default 0s, 1s, 2s, 4s and
	// 16 × 8s: about 2 minutes, so the receiver's absence and its 500s
	// leave no delivery failed).
	RetrySchedule []time.Duration
	Timeout       time.Duration // webhooks.timeout (default 2s)
	// Quiet makes a soak without faults: a receiver that answers 204 to
	// every delivery and never goes away, and no SIGKILL; its latency is
	// the delivery's own.
	Quiet bool
	// Drain bounds how long reports and decisions started before the
	// load stopped may take to get their 200 (default 2m).
	Drain time.Duration
}

// complete fills the defaults and checks what would fail late.
func (c *WebhookConfig) complete() error {
	switch {
	case c.Binary == "" || c.Dir == "" || c.DSN == "":
		return errors.New("webhook soak: Binary, Dir and DSN are required")
	case c.Duration <= 0:
		return errors.New("webhook soak: Duration must be positive")
	case c.Oracle == "":
		return errors.New("webhook soak: Oracle (test/sworacle) is required: every delivery is checked by standardwebhooks")
	}
	node, err := Oracle(c.Oracle, c.Node)
	if err != nil {
		return fmt.Errorf("webhook soak: %w", err)
	}
	c.Node = node
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	defInt := func(n *int, v int) {
		if *n <= 0 {
			*n = v
		}
	}
	defInt(&c.Concurrency, 16)
	defInt(&c.Deciders, 8)
	defInt(&c.Replicas, 3)
	def(&c.KillEvery, 2*time.Minute)
	def(&c.Down, 5*time.Second)
	def(&c.Away, 30*time.Second)
	def(&c.AwayAt, max(time.Second, c.Duration/2-c.Away/2))
	def(&c.Timeout, 2*time.Second)
	def(&c.Drain, 2*time.Minute)
	switch {
	case c.Quiet:
		c.FailShare = 0
	case c.FailShare == 0:
		c.FailShare = 1.0 / 3
	}
	if c.RejectEvery <= 0 {
		c.RejectEvery = 3
	}
	if c.ReasonCode == "" {
		c.ReasonCode = "documento_ilegible"
	}
	if len(c.RetrySchedule) == 0 {
		c.RetrySchedule = []time.Duration{0, time.Second, 2 * time.Second, 4 * time.Second}
		for range 16 {
			c.RetrySchedule = append(c.RetrySchedule, 8*time.Second)
		}
	}
	if c.Logs == nil {
		c.Logs = func(string) io.Writer { return io.Discard }
	}
	if c.Progress == nil {
		c.Progress = func(string, ...any) {}
	}
	return nil
}

// schedule is RetrySchedule as webhooks.retry_schedule takes it.
func (c *WebhookConfig) schedule() string {
	parts := make([]string, len(c.RetrySchedule))
	for i, d := range c.RetrySchedule {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}

// outboxBound is how long the outbox may go without draining further
// once the load has stopped: three times the schedule's longest step
// (with its +20 % jitter), plus a lease (webhooks.timeout + 60 s): an
// attempt in flight on a replica SIGKILLed last is taken over when its
// lease runs out.
func (c *WebhookConfig) outboxBound() time.Duration {
	return 3*slices.Max(c.RetrySchedule)*6/5 + c.Timeout + 60*time.Second + 5*time.Second
}

// RunWebhooks runs the soak and returns what it counted and every
// disagreement it found (WebhookResult.Violations). An error means the
// soak could not run (a replica did not start, the database or the
// oracle did not answer), not that it found something.
func RunWebhooks(ctx context.Context, c WebhookConfig) (*WebhookResult, error) {
	if err := c.complete(); err != nil {
		return nil, err
	}
	w, err := setUpWebhooks(ctx, &c)
	if err != nil {
		return nil, err
	}
	defer w.tearDown()
	if err := w.load(ctx); err != nil {
		return w.res, err
	}
	if err := w.drainOutbox(ctx); err != nil {
		return w.res, err
	}
	// Nothing is delivered from here on: the receiver's log and the
	// oracle's file hold the same POSTs.
	w.fleet.stopAll()
	w.res.Finished = time.Now()
	if err := w.check(ctx); err != nil {
		return w.res, err
	}
	return w.res, nil
}
