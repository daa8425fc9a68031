package soak

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/proc"
)

// settle waits until the last held COMMIT has reached the database and
// everything the load left is older than the stale bound, with a few of
// the replicas' sweeps after that.
func (s *soak) settle(ctx context.Context) error {
	from := s.res.Drained
	if q := s.plan.quietAt(); q.After(from) {
		from = q
	}
	until := from.Add(s.c.staleBound() + 3*time.Second)
	s.c.Progress("soak: drained; waiting %s for the stale bound (last held COMMIT released %s)",
		time.Until(until).Round(time.Second), s.plan.quietAt().UTC().Format(time.RFC3339))
	select {
	case <-time.After(time.Until(until)):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// finalReconcile runs reconcile --apply beside the running replicas, as an
// operator would, then a dry run that must find nothing left.
func (s *soak) finalReconcile() error {
	out, err := s.reconcile("--apply")
	if err != nil {
		return err
	}
	s.res.FinalReconcile = out
	s.c.Progress("soak: reconcile --apply: %s", counts(out))
	left, err := s.reconcile()
	if err != nil {
		return err
	}
	for _, kind := range []string{ports.FoundLeftover, ports.FoundOrphanFile, ports.FoundPendingRecord, ports.FoundMissingFile} {
		if left[kind] != 0 {
			s.res.violation("after the final reconcile --apply, reconcile still finds %s: %d", kind, left[kind])
		}
	}
	return nil
}

// reconcile runs the command straight on the database and the bucket and
// returns its counts. Exit code 1 (a row's file is missing) is a finding,
// not a failure to run.
func (s *soak) reconcile(args ...string) (map[string]int64, error) {
	out, err := proc.CLI(s.c.Binary, s.c.Dir, s.direct, "", append([]string{"reconcile"}, args...)...)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return nil, fmt.Errorf("reconcile %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	got := map[string]int64{}
	for line := range strings.Lines(out) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if n, err := strconv.ParseInt(v, 10, 64); ok && err == nil {
			got[k] = n
		}
		if strings.HasPrefix(line, "MISSING ") {
			s.res.violation("reconcile %s: %s", strings.Join(args, " "), strings.TrimSpace(line))
		}
	}
	for _, kind := range ports.FindingKinds {
		if _, ok := got[kind]; !ok {
			return nil, fmt.Errorf("reconcile %s printed no %s count:\n%s", strings.Join(args, " "), kind, out)
		}
	}
	return got, nil
}
