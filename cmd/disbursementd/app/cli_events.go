package app

import (
	"context"
	"fmt"
	"time"

	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

const eventsHelp = `Keeps partners' events (GET /v1/events, webhooks; contract §11) within
events.retention:
  events purge [--dry-run]   deletes the events created longer ago than events.retention
                             (30 days by default), with their webhook deliveries and attempts,
                             in batches of idempotency.sweep_batch; --dry-run only counts them
Run it from cron (a Kubernetes CronJob), as reports purge: serve never purges by itself.
Exit codes: 0 done; 1 the database failed (the batches before were deleted); 2 a bad flag.`

var eventsCommand = subcommands{"events", "purge [--dry-run]", eventsHelp, map[string]subcommand{
	"purge": {"[--dry-run]", "Deletes the events created longer ago than events.retention, with their deliveries and\n" +
		"attempts, and prints how many; with --dry-run it only counts them."},
}}

// eventsRun runs "disbursementd events SUBCOMMAND".
func eventsRun(ctx context.Context, args []string, io IO) int {
	p, code, ok := eventsCommand.pick(args, io)
	if !ok {
		return code
	}
	dry := p.fs.Bool("dry-run", false, "only count what would be deleted")
	if code, ok := parse(p.fs, p.args); !ok {
		return code
	}
	const who = "disbursementd events purge"
	cfg, st, code := openConfiguredStore(ctx, *p.cfgPath, io, true)
	if st == nil {
		return code
	}
	defer st.Close()
	purge, err := ports.NewEventPurge(st, sysclock.Clock{}, cfg.Idempotency.SweepBatch)
	if err != nil {
		fmt.Fprintf(io.Stderr, "%s: %v\n", who, err)
		return ExitFailure
	}
	rep, err := purge.Run(ctx, cfg.Events.Retention, !*dry)
	verb := "deleted"
	if *dry {
		verb = "would delete"
	}
	fmt.Fprintf(io.Stdout, "%s %d events created before %s (events.retention %s)\n", verb, rep.Events, rep.Before.Format(time.RFC3339), cfg.Events.Retention)
	if err != nil {
		fmt.Fprintf(io.Stderr, "%s: the database failed: %s\n", who, domain.MaskCredentials(err.Error()))
		return exitCode(err)
	}
	return ExitOK
}
