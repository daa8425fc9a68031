package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

var reconcileHelp = `Looks for what a crash or a database restore can leave behind, all of it
older than the stale bound (http.report_timeout + ` + config.StaleMargin.String() + `): temporary files,
published files that no stored report names, pending idempotency records
of release 1.0.0 (pending_claim), idempotency records past their TTL, tombstones of removed files past idempotency.ttl,
quarantined files past uploads.quarantine_retention; and every row whose
file is missing (reported only: a file cannot be made again). Without
--apply it only lists what it found and why; with --apply it clears it:
a file no report names is MOVED to quarantine (uploads.dir/.quarantine/,
on S3 {prefix}quarantine/), never deleted, and deleted only once it has
been there for uploads.quarantine_retention. It then lists every
quarantined file with its age and whether a report names it again (its
row came back with a later backup): such a file goes back with
--restore-quarantined NAME. serve runs the same sweep at start and every
uploads.sweep_interval. Safe beside running replicas: a file leaves its
place only once the database has recorded that no report can reserve it.

Exit codes: 0 done; 1 a row's file is missing, or something could not be
done (each is printed), or the database or upload store does not answer;
2 a bad flag or a NAME that is not an uploaded file's name; 3 (with
--restore-quarantined) no such file in quarantine, no report names it, or
a file of that name is in place already.`

func reconcileRunner(fs *flag.FlagSet) runner {
	apply := fs.Bool("apply", false, "clear what is found: leftovers removed, files no report names quarantined (default: only list it)")
	restore := fs.String("restore-quarantined", "", "move the quarantined file NAME back, once a stored report names it")
	return func(ctx context.Context, cfgPath string, io IO) int {
		if *restore != "" && (*apply || fs.NArg() > 0) {
			fmt.Fprintln(io.Stderr, "disbursementd reconcile: --restore-quarantined NAME takes no other argument")
			return ExitUsage
		}
		if *restore != "" && !domain.ValidUploadName(*restore) {
			fmt.Fprintf(io.Stderr, "disbursementd reconcile: %q is not the name of an uploaded file (partner_CREDIT_TIMESTAMP.EXT, as reconcile lists it)\n", *restore)
			return ExitUsage
		}
		opened, code := openStores(ctx, cfgPath, io, "disbursementd reconcile")
		if opened == nil {
			return code
		}
		defer opened.Close()
		sweep, err := newSweep(opened.cfg, opened.st, opened.up, sysclock.Clock{})
		if err != nil {
			fmt.Fprintln(io.Stderr, "disbursementd reconcile:", err)
			return ExitFailure
		}
		if *restore != "" {
			return restoreQuarantined(ctx, sweep, *restore, io)
		}
		return reconcile(ctx, sweep, *apply, io)
	}
}

// verbs say what a run did with each kind, or would do.
var verbs = map[string][2]string{
	ports.FoundLeftover:      {"would remove", "removed"},
	ports.FoundOrphanFile:    {"would quarantine", "quarantined"},
	ports.FoundExpiredFile:   {"would delete", "deleted"},
	ports.FoundPurgedFile:    {"would delete", "deleted"},
	ports.FoundPendingRecord: {"would remove", "removed"},
	ports.FoundExpiredKey:    {"would remove", "removed"},
	ports.FoundTombstone:     {"would remove", "removed"},
}

func reconcile(ctx context.Context, sweep *ports.Sweep, apply bool, io IO) int {
	rep, err := sweep.Run(ctx, apply, ports.EveryRow)
	done := 0
	if apply {
		done = 1
	}
	for _, f := range rep.Findings {
		if f.Kind == ports.FoundMissingFile {
			fmt.Fprintf(io.Stdout, "MISSING %s: %s\n", f.Name, f.Reason)
			continue
		}
		fmt.Fprintf(io.Stdout, "%s %s %s: %s\n", verbs[f.Kind][done], f.Kind, f.Name, f.Reason)
	}
	for _, f := range rep.Failures {
		fmt.Fprintf(io.Stdout, "FAILED %s %s: %v\n", f.Kind, f.Name, f.Err)
	}
	list, lerr := sweep.Quarantined(ctx)
	now := time.Now().UTC()
	for _, q := range list {
		state := "no stored report names it"
		if q.Named {
			state = "a stored report names it: disbursementd reconcile --restore-quarantined " + q.Name
		}
		fmt.Fprintf(io.Stdout, "QUARANTINED %s: since %s (%s), deleted after %s; %s\n", q.Name,
			q.At.Format(time.RFC3339), age(now.Sub(q.At)), q.DeleteAfter.Format(time.RFC3339), state)
	}
	for _, k := range ports.FindingKinds {
		fmt.Fprintf(io.Stdout, "%s: %d\n", k, rep.Counts[k])
	}
	fmt.Fprintf(io.Stdout, "in quarantine: %d\nfailures: %d\n", len(list), rep.FailureCount())
	if err = errors.Join(err, lerr); err != nil {
		fmt.Fprintln(io.Stderr, "disbursementd reconcile:", err)
		return ExitFailure
	}
	if rep.Counts[ports.FoundMissingFile] > 0 {
		return ExitFailure
	}
	return ExitOK
}

// age writes a duration in days and hours, as an operator reads it.
func age(d time.Duration) string {
	d = d.Round(time.Hour)
	if days := int(d / (24 * time.Hour)); days > 0 {
		return fmt.Sprintf("%dd%dh old", days, int(d%(24*time.Hour)/time.Hour))
	}
	return fmt.Sprintf("%dh old", int(d/time.Hour))
}

func restoreQuarantined(ctx context.Context, sweep *ports.Sweep, name string, io IO) int {
	err := sweep.Restore(ctx, name)
	if err == nil {
		fmt.Fprintf(io.Stdout, "restored %s from quarantine\n", name)
		return ExitOK
	}
	fmt.Fprintln(io.Stderr, "disbursementd reconcile:", err)
	return exitCode(err)
}
