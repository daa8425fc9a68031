package app

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

const purgeHelp = "Deletes the reports received longer ago than retention.reports (or --older-than D,\n" +
	"e.g. 1825d or 43800h), their rows and their files (in place or in quarantine), in batches of\n" +
	"idempotency.sweep_batch. With --dry-run it only counts them. It prints counts, never a report.\n" +
	"Run it from cron (a Kubernetes CronJob): serve never purges by itself. Exit codes: 0 done;\n" +
	"1 the database or the upload store failed, or a file could not be deleted (the rest were);\n" +
	"2 a bad flag, no retention set, or one shorter than idempotency.ttl."

func reportsPurge(ctx context.Context, fs *flag.FlagSet, cfgPath *string, args []string, io IO) int {
	olderThan := fs.String("older-than", "", "delete reports received longer ago than this (default: retention.reports)")
	dry := fs.Bool("dry-run", false, "only count what would be deleted")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(io.Stderr, "disbursementd reports purge: takes no arguments (see --help)")
		return ExitUsage
	}
	cfg, code := loadConfig(*cfgPath, io)
	if cfg == nil {
		return code
	}
	age := cfg.Retention.Reports
	if *olderThan != "" {
		d, err := config.ParseDuration(*olderThan)
		if err != nil {
			fmt.Fprintln(io.Stderr, "disbursementd reports purge: --older-than:", err)
			return ExitUsage
		}
		age = d
	}
	if age == 0 {
		fmt.Fprintln(io.Stderr, "disbursementd reports purge: no retention: set retention.reports (DISB_RETENTION_REPORTS) or give --older-than")
		return ExitUsage
	}
	opened, code := openStores(ctx, *cfgPath, io, "disbursementd reports purge")
	if opened == nil {
		return code
	}
	defer opened.Close()
	purge, err := ports.NewPurge(opened.st, opened.up, sysclock.Clock{}, cfg.Idempotency.SweepBatch, cfg.Idempotency.TTL)
	if err != nil {
		fmt.Fprintln(io.Stderr, "disbursementd reports purge:", err)
		return ExitFailure
	}
	rep, err := purge.Run(ctx, age, !*dry)
	verb := "deleted"
	if *dry {
		verb = "would delete"
	}
	fmt.Fprintf(io.Stdout, "%s %d reports and %d files received before %s\n", verb, rep.Reports, rep.Files, rep.Before.Format(time.RFC3339))
	for _, f := range rep.Failures {
		fmt.Fprintf(io.Stdout, "FAILED %s: %v\n", f.Name, f.Err)
	}
	switch {
	case err == nil:
		return ExitOK
	case domain.IsKind(err, domain.ErrInvalidInput):
		fmt.Fprintln(io.Stderr, "disbursementd reports purge:", err)
		return ExitUsage
	}
	fmt.Fprintln(io.Stderr, "disbursementd reports purge:", err)
	return ExitFailure
}
