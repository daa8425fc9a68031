package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

const reportsHelp = `Looks up stored reports, read-only, for support: any partner's.
  reports list [--user U] [--credit N] [--key K] [--from D] [--to D] [--limit N] [--before ID]
                   stored reports, newest first (50 unless --limit, at most 500)
  reports show ID  one report: its receipt, its file's name and whether the upload
                   store has it, and its stored fields
Identification numbers (the client's and every NIT) are shown masked. An
Idempotency-Key is shown as the first 12 hex digits of its SHA-256, as the
request lines log it (idempotency_key_sha256); from a key a partner quotes:
printf '%s' 'KEY' | sha256sum | cut -c1-12. A refused report was not
stored: find its request line in the logs (operator guide, "Support").
Neither command writes to the database or to the upload store.
  reports purge [--older-than D] [--dry-run]
                   deletes reports (rows and files) received longer ago than
                   retention.reports, or D (personal data: operator guide)
The lender's decisions (contract §11), recorded as made by cli:USER:
  reports accept ID
  reports reject ID --reason-code CODE --reason TEXT
  reports decide --file FILE.csv
                   the decisions of a CSV file, each line on its own`

var reportsCommand = subcommands{"reports", "list|show|purge|accept|reject|decide [flags]", reportsHelp, map[string]subcommand{
	"accept": {"ID", acceptHelp},
	"reject": {"ID --reason-code CODE --reason TEXT", rejectHelp},
	"decide": {"--file FILE.csv", decideHelp},
	"list": {"[--user U] [--credit N] [--key K] [--from D] [--to D] [--limit N] [--before ID]",
		"Lists stored reports of every partner, or of --user, newest first (by receipt time, then id):\n" +
			"id, receipt time, partner, credit number, file, the Idempotency-Key's SHA-256 prefix and the request id. Dates are\n" +
			"YYYY-MM-DD (00:00 UTC) or RFC 3339; --from is inclusive, --to exclusive. When more reports\n" +
			"match than --limit, standard error says which --before shows the next (older) page.\n" +
			"--key needs --user (a key is a partner's own). Exit code 2 for a bad flag."},
	"purge": {"[--older-than D] [--dry-run]", purgeHelp},
	"show": {"ID", "Shows stored report ID, whoever sent it: its receipt, its partner, its request id, its\n" +
		"file (present, MISSING or none; the upload store is asked), its status and decision (who made\n" +
		"it and when) and its stored fields.\n" +
		"Exit code 3 when there is no report ID, 1 when the upload store does not answer."},
}}

// reports runs "disbursementd reports SUBCOMMAND".
func reports(ctx context.Context, args []string, io IO) int {
	p, code, ok := reportsCommand.pick(args, io)
	if !ok {
		return code
	}
	switch p.name {
	case "show":
		return reportsShow(ctx, p, io)
	case "accept", "reject":
		return reportsDecideOne(ctx, p, io)
	case "decide":
		return reportsDecideFile(ctx, p, io)
	case "purge":
		return reportsPurge(ctx, p.fs, p.cfgPath, p.args, io)
	}
	return reportsList(ctx, p.fs, p.cfgPath, p.args, io)
}

func reportsList(ctx context.Context, fs *flag.FlagSet, cfgPath *string, args []string, io IO) int {
	var q ports.SupportQuery
	fs.StringVar(&q.User, "user", "", "the partner (user name); default every partner")
	fs.StringVar(&q.CreditNumber, "credit", "", "the credit number (Número de Crédito)")
	fs.StringVar(&q.IdempotencyKey, "key", "", "the Idempotency-Key the partner sent (needs --user)")
	from := fs.String("from", "", "received at or after: YYYY-MM-DD (00:00 UTC) or RFC 3339")
	to := fs.String("to", "", "received before: YYYY-MM-DD (00:00 UTC) or RFC 3339")
	fs.IntVar(&q.Limit, "limit", ports.SupportPageDefault, "reports to show, 1 to "+strconv.Itoa(ports.SupportPageMax))
	fs.Int64Var(&q.Before, "before", 0, "show the reports listed after report ID (the next, older page)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	var ok bool
	if q.From, ok = flagDate(io, "from", *from); !ok {
		return ExitUsage
	}
	if q.To, ok = flagDate(io, "to", *to); !ok {
		return ExitUsage
	}
	if q.Limit < 1 {
		fmt.Fprintf(io.Stderr, "disbursementd reports list: --limit %d: want 1 to %d\n", q.Limit, ports.SupportPageMax)
		return ExitUsage
	}
	_, support, closeStore, code := openSupport(ctx, *cfgPath, io)
	if support == nil {
		return code
	}
	defer closeStore()
	page, err := support.List(ctx, q)
	if err != nil {
		return reportsErr(io, "list", err)
	}
	printRecords(io.Stdout, page.Records)
	switch {
	case len(page.Records) == 0:
		fmt.Fprintln(io.Stderr, "no stored report matches")
	case page.Next != 0:
		fmt.Fprintf(io.Stderr, "%d shown; older ones: the same command with --before %d\n", len(page.Records), page.Next)
	}
	return ExitOK
}

func reportsShow(ctx context.Context, p picked, io IO) int {
	n, code, ok := reportID(p, io)
	if !ok {
		return code
	}
	cfg, support, closeStore, code := openSupport(ctx, *p.cfgPath, io)
	if support == nil {
		return code
	}
	defer closeStore()
	up, err := OpenUploads(ctx, cfg, sysclock.Clock{})
	if err != nil {
		fmt.Fprintln(io.Stderr, "disbursementd reports show:", err)
		return ExitFailure
	}
	defer up.Close()
	r, err := support.Show(ctx, n, up)
	if err != nil && r.ID == 0 {
		return reportsErr(io, "show", err)
	}
	printReport(io.Stdout, r)
	if err != nil {
		return reportsErr(io, "show", err)
	}
	return ExitOK
}

// flagDate reads a date flag as /v1 reads its bounds (domain.ParseInstant);
// "" is no bound. On a bad date it has said so.
func flagDate(io IO, name, text string) (time.Time, bool) {
	if text == "" {
		return time.Time{}, true
	}
	t, ok := domain.ParseInstant(text)
	if !ok {
		fmt.Fprintf(io.Stderr, "disbursementd reports list: --%s %q: want YYYY-MM-DD or an RFC 3339 date-time\n", name, text)
	}
	return t, ok
}

// openSupport loads the configuration and opens its store, refusing an
// outdated schema rather than migrating it (these commands write
// nothing); on failure it has said why and returns the exit code.
func openSupport(ctx context.Context, cfgPath string, io IO) (*config.Config, *ports.Support, func(), int) {
	cfg, st, code := openConfiguredStore(ctx, cfgPath, io, false)
	if st == nil {
		return nil, nil, nil, code
	}
	if err := st.CheckSchema(ctx); err != nil {
		_ = st.Close()
		fmt.Fprintln(io.Stderr, "disbursementd reports:", domain.MaskError(err))
		return nil, nil, nil, ExitFailure
	}
	s, err := ports.NewSupport(st)
	if err != nil {
		_ = st.Close()
		fmt.Fprintln(io.Stderr, "disbursementd reports:", err)
		return nil, nil, nil, ExitFailure
	}
	return cfg, s, func() { _ = st.Close() }, ExitOK
}

// reportsErr says what went wrong and picks the exit code by the error's
// kind. A failing database is told by its cause (the use case's message
// is the partners' Spanish one), a refusal by its message alone.
func reportsErr(io IO, sub string, err error) int {
	msg := err.Error()
	var de *domain.Error
	switch {
	case !errors.As(err, &de):
	case de.Code == "store_failed" && de.Cause != nil:
		msg = "the database failed: " + de.Cause.Error()
	case exitCode(err) != ExitFailure:
		msg = de.Message
	}
	fmt.Fprintf(io.Stderr, "disbursementd reports %s: %s\n", sub, domain.MaskCredentials(msg))
	return exitCode(err)
}
