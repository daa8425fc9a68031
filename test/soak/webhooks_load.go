package soak

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// load runs the partner's reports and the back office's decisions for
// Duration, a replica SIGKILLed every KillEvery and the receiver away
// once; then it lets every started report and decision finish (each
// until its 200), within Drain. Each report acknowledged is queued for a
// decider; the queue is short, so the partner's pace follows the back
// office's.
func (w *whSoak) load(ctx context.Context) error {
	c := w.wc
	var stopped atomic.Bool
	queue := make(chan int64, 4*c.Deciders)
	w.res.LoadStarted = time.Now()
	c.Progress("webhook soak: %s of load at c=%d, %d deciders, from %s", c.Duration, c.Concurrency, c.Deciders, w.res.LoadStarted.Format(time.RFC3339))

	var reporters, deciders sync.WaitGroup
	var pace <-chan time.Time
	if c.Rate > 0 {
		tick := time.NewTicker(time.Duration(float64(time.Second) / c.Rate))
		defer tick.Stop()
		pace = tick.C
	}
	for k := range c.Concurrency {
		reporters.Add(1)
		go func() {
			defer reporters.Done()
			for i := 0; !stopped.Load() && ctx.Err() == nil; i++ {
				if pace != nil {
					select {
					case <-pace:
					case <-ctx.Done():
						return
					}
				}
				r := w.reports.next()
				w.send(ctx, r, k+i)
				if oks := r.answers(); len(oks) > 0 && oks[0].id > 0 {
					select {
					case queue <- oks[0].id:
					case <-ctx.Done():
					}
				}
			}
		}()
	}
	for k := range c.Deciders {
		deciders.Add(1)
		go func() {
			defer deciders.Done()
			for id := range queue {
				w.decide(ctx, id, k)
			}
		}()
	}
	stop := make(chan struct{})
	killed, away := make(chan error, 1), make(chan error, 1)
	if c.Quiet {
		killed <- nil
		away <- nil
	} else {
		go func() { killed <- w.kills(ctx, stop) }()
		go func() { away <- w.awayOnce(ctx, stop) }()
	}

	select {
	case <-time.After(c.Duration):
	case <-ctx.Done():
	}
	stopped.Store(true)
	close(stop)
	w.res.LoadStopped = time.Now()
	w.setDrainDeadline(time.Now().Add(c.Drain))
	c.Progress("webhook soak: load stopped; %d reports started; draining reports and decisions", len(w.reports.all()))
	killErr, awayErr := <-killed, <-away
	reporters.Wait()
	close(queue)
	deciders.Wait()
	w.res.Drained = time.Now()
	w.res.Retries = w.res.retries.Load()
	if killErr != nil {
		return killErr
	}
	if awayErr != nil {
		return awayErr
	}
	return ctx.Err()
}

// kills SIGKILLs replica n mod Replicas at the n-th KillEvery until
// stop and restarts it Down later (after stop too: the outbox drains on
// every replica).
func (w *whSoak) kills(ctx context.Context, stop <-chan struct{}) error {
	for n := 0; ; n++ {
		select {
		case <-time.After(w.wc.KillEvery):
		case <-stop:
			return nil
		case <-ctx.Done():
			return nil
		}
		i := n % w.wc.Replicas
		w.fleet.kill(i)
		k := Kill{Replica: i, At: time.Now()}
		w.wc.Progress("webhook soak: replica %d SIGKILLed at +%s", i, k.At.Sub(w.res.LoadStarted).Round(time.Millisecond))
		select {
		case <-time.After(w.wc.Down):
		case <-ctx.Done():
			return nil
		}
		if err := w.fleet.start(i); err != nil {
			return fmt.Errorf("restart after SIGKILL: %w", err)
		}
		k.Restarted = time.Now()
		w.res.Kills = append(w.res.Kills, k)
	}
}

// awayOnce takes the receiver away at AwayAt for Away, unless the load
// stops first.
func (w *whSoak) awayOnce(ctx context.Context, stop <-chan struct{}) error {
	select {
	case <-time.After(w.wc.AwayAt):
	case <-stop:
		return nil
	case <-ctx.Done():
		return nil
	}
	w.res.AwayFrom = time.Now()
	w.wc.Progress("webhook soak: the receiver goes away for %s at +%s", w.wc.Away, w.res.AwayFrom.Sub(w.res.LoadStarted).Round(time.Millisecond))
	err := w.rcv.away(w.wc.Away)
	w.res.AwayUntil = time.Now()
	return err
}

// wantDecision is the decision the back office makes on report id.
func (w *whSoak) wantDecision(id int64) (status, body string) {
	if id%w.wc.RejectEvery == 0 {
		return "rejected", fmt.Sprintf(`{"decision":"rejected","reason_code":%q,"reason":"Soak: report %d rejected"}`, w.wc.ReasonCode, id)
	}
	return "accepted", `{"decision":"accepted"}`
}

// decide posts report id's decision to the decision API until a 200, as
// a back office would: after no answer or a 503, on the next replica
// after a short pause. Any other answer, or a 200 with another status,
// is a violation; so is running past the drain's deadline.
func (w *whSoak) decide(ctx context.Context, id int64, start int) {
	want, body := w.wantDecision(id)
	for attempt := 0; ; attempt++ {
		status, raw, err := w.postDecision(ctx, w.admin[(start+attempt)%len(w.admin)], id, body)
		kind := fmt.Sprint(status)
		if err != nil {
			kind = "no answer"
		}
		w.res.tallyDecision(kind)
		switch {
		case err == nil && status == http.StatusOK:
			if !strings.Contains(raw, `"status":"`+want+`"`) {
				w.res.violation("decision on report %d: 200 without status %s: %.300s", id, want, raw)
			}
			w.res.decided(id, want)
			return
		case err == nil && status != http.StatusServiceUnavailable:
			w.res.violation("decision on report %d: answered %d %.300s", id, status, raw)
			return
		case ctx.Err() != nil:
			return
		}
		if d := w.drainDeadline(); !d.IsZero() && time.Now().After(d) {
			w.res.violation("decision on report %d: no 200 by the end of the drain; last %s %v", id, kind, err)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100*time.Millisecond + rand.N(200*time.Millisecond)):
		}
	}
}

// postDecision sends one decision to the decision API at base.
func (w *whSoak) postDecision(ctx context.Context, base string, id int64, body string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, fmt.Sprintf("%s/admin/v1/reports/%d/decision", base, id), strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+w.boSecret)
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, string(raw), err
}
