package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lender/disbursementd/adapters/httpapi"
)

// load runs the mix for Duration with the faults armed and SIGKILLs one
// replica mid-run; then it stops the faults and lets every started report
// finish (each until its 200), within Drain.
func (s *soak) load(ctx context.Context) error {
	c := s.c
	s.reports = newMix(fileShare)
	var stopped atomic.Bool
	s.arm()
	s.res.LoadStarted = time.Now()
	c.Progress("soak: %s of load at c=%d from %s", c.Duration, c.Concurrency, s.res.LoadStarted.Format(time.RFC3339))

	var wg sync.WaitGroup
	for w := range c.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stopped.Load() && ctx.Err() == nil; i++ {
				s.send(ctx, s.reports.next(), w+i)
			}
		}()
	}
	logins := make(chan struct{})
	go func() { defer close(logins); s.logins(ctx, &stopped) }()

	killed := make(chan error, 1)
	if c.Galera != nil {
		go func() { killed <- s.killNodes(ctx, &stopped) }()
	} else {
		go func() { killed <- s.killOne(ctx) }()
	}

	select {
	case <-time.After(c.Duration):
	case <-ctx.Done():
	}
	stopped.Store(true)
	s.disarm()
	s.res.LoadStopped = time.Now()
	s.setDrainDeadline(time.Now().Add(c.Drain))
	c.Progress("soak: load stopped, faults off; %d reports started; draining", len(s.reports.all()))
	killErr := <-killed
	wg.Wait() // bounded: a report still without its 200 is given up at the drain's deadline
	<-logins
	s.res.Drained = time.Now()
	s.res.Retries = s.res.retries.Load()
	if killErr != nil {
		return killErr
	}
	return ctx.Err()
}

// send delivers r as its mode says.
func (s *soak) send(ctx context.Context, r *report, start int) {
	switch r.mode {
	case once:
		s.deliver(ctx, r, start)
	case twin:
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); s.deliver(ctx, r, start+1) }()
		s.deliver(ctx, r, start)
		wg.Wait()
	case again:
		if s.deliver(ctx, r, start) {
			s.deliver(ctx, r, start+1)
		}
	}
}

// killOne SIGKILLs replica 1 at KillAt and restarts it Down later, in its
// own directory with its own settings.
func (s *soak) killOne(ctx context.Context) error {
	select {
	case <-time.After(s.c.KillAt):
	case <-ctx.Done():
		return nil
	}
	s.fleet.kill(1)
	s.res.Killed = time.Now()
	s.c.Progress("soak: replica 1 SIGKILLed at +%s", s.res.Killed.Sub(s.res.LoadStarted).Round(time.Millisecond))
	select {
	case <-time.After(s.c.Down):
	case <-ctx.Done():
		return nil
	}
	if err := s.fleet.start(1); err != nil {
		return fmt.Errorf("restart after SIGKILL: %w", err)
	}
	s.res.Restarted = time.Now()
	s.c.Progress("soak: replica 1 restarted and ready at +%s", s.res.Restarted.Sub(s.res.LoadStarted).Round(time.Millisecond))
	return nil
}

// logins exchanges the partner's credentials every 2 s on each replica in
// turn, through the database throttle, while the load runs. A correct
// password is never refused: 200, or 503 while a dependency is slow.
func (s *soak) logins(ctx context.Context, stopped *atomic.Bool) {
	for i := 0; !stopped.Load() && ctx.Err() == nil; i++ {
		select {
		case <-time.After(2 * time.Second):
		case <-ctx.Done():
			return
		}
		status, _, err := s.exchange(ctx, s.fleet.url(i))
		switch {
		case err != nil:
			s.res.tallyLogin("no answer")
		case status == http.StatusOK || status == http.StatusServiceUnavailable:
			s.res.tallyLogin(fmt.Sprint(status))
		default:
			s.res.tallyLogin(fmt.Sprint(status))
			s.res.violation("login with the right password: %d", status)
		}
	}
}

// login takes a token for the partner on the replica at url.
func (s *soak) login(ctx context.Context, url string) (string, error) {
	status, raw, err := s.exchange(ctx, url)
	if err != nil {
		return "", fmt.Errorf("login: %w", err)
	}
	var body struct {
		Token string `json:"access_token"`
	}
	if status != http.StatusOK || json.Unmarshal(raw, &body) != nil || body.Token == "" {
		return "", fmt.Errorf("login: %d %.200s", status, raw)
	}
	return body.Token, nil
}

// exchange is one login with the partner's credentials.
func (s *soak) exchange(ctx context.Context, url string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+httpapi.PartnerPath,
		strings.NewReader(fmt.Sprintf(`{"user":%q,"password":%q}`, User, Password)))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, raw, err
}
