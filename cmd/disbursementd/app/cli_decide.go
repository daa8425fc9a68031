package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"

	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// The lender's decisions from the command line (contract §11): reports
// accept ID, reports reject ID --reason-code C --reason T, and reports
// decide --file F (cli_decide_file.go). Each is recorded as made by
// cli:USER.

const acceptHelp = "Accepts report ID (contract §11), as the operator running the command (cli:USER).\n" +
	"A decision is final: accepting an accepted report changes nothing; a rejected one is refused.\n" +
	"Exit code 3 when there is no report ID or it was rejected, 2 for a bad ID."

const rejectHelp = "Rejects report ID with a reason code (decisions.reason_codes) and a reason for the partner\n" +
	"(1 to 500 characters), as the operator running the command (cli:USER). A decision is final: the\n" +
	"same rejection again changes nothing; another decision is refused. Exit code 3 when there is no\n" +
	"report ID or it has another decision, 2 for a bad ID, code or reason."

// cliUser is who runs the command, as its decisions record it: the user
// behind sudo ($SUDO_USER) when set, else the operating system's user,
// else its uid; at most 64 printable ASCII characters.
func cliUser() string {
	name := os.Getenv("SUDO_USER")
	if name == "" {
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
	}
	if name == "" {
		name = "uid:" + strconv.Itoa(os.Getuid())
	}
	clean := strings.Map(func(r rune) rune {
		if r <= ' ' || r > '~' {
			return '_'
		}
		return r
	}, name)
	return clean[:min(len(clean), 64)]
}

// withDecisions opens the configured store (its schema migrated, as the
// users commands do), runs run with the use cases of contract §11 on it,
// closes it, and returns run's exit code; when the store or the use cases
// cannot be had it has said why, as who, and returns the exit code.
func withDecisions(ctx context.Context, cfgPath string, io IO, who string, run func(s11Cases) int) int {
	cfg, st, code := openConfiguredStore(ctx, cfgPath, io, true)
	if st == nil {
		return code
	}
	defer func() { _ = st.Close() }()
	c, err := s11UseCases(cfg, st, sysclock.Clock{}, nil)
	if err != nil {
		fmt.Fprintf(io.Stderr, "%s: %v\n", who, err)
		return ExitUsage
	}
	return run(c)
}

// reportsDecideOne runs "reports accept ID" and "reports reject ID
// --reason-code C --reason T".
func reportsDecideOne(ctx context.Context, p picked, io IO) int {
	req := domain.DecisionRequest{Decision: string(domain.StatusAccepted)}
	if p.name == "reject" {
		req.Decision = string(domain.StatusRejected)
		p.fs.StringVar(&req.ReasonCode, "reason-code", "", "the reason code (one of decisions.reason_codes)")
		p.fs.StringVar(&req.Reason, "reason", "", "the reason, for the partner (1 to 500 characters)")
	}
	id, code, ok := reportID(p, io)
	if !ok {
		return code
	}
	return withDecisions(ctx, *p.cfgPath, io, "disbursementd reports "+p.name, func(c s11Cases) int {
		return decideOne(ctx, c.decisions, id, req, domain.DecidedByCLI(cliUser()), io)
	})
}

// decideOne makes one decision and says what it did.
func decideOne(ctx context.Context, d *ports.Decisions, id int64, req domain.DecisionRequest, by string, io IO) int {
	receipt, did, err := d.Decide(ctx, id, req, by)
	if err != nil {
		return decisionErr(io, req.Decision, id, err)
	}
	if did == ports.DecisionAlreadySo {
		fmt.Fprintf(io.Stdout, "report %d: already %s (by %s at %s); nothing changed\n", id, receipt.Status,
			orDash(receipt.Decision.By), domain.ReceiptTime(receipt.Decision.At))
		return ExitOK
	}
	fmt.Fprintf(io.Stdout, "report %d: %s by %s at %s\n", id, receipt.Status, receipt.Decision.By, domain.ReceiptTime(receipt.Decision.At))
	return ExitOK
}

// decisionErr says why a decision was refused, each wrong member on its
// own line, and returns its exit code (exitCode).
func decisionErr(io IO, decision string, id int64, err error) int {
	var de *domain.Error
	switch {
	case !errors.As(err, &de):
		fmt.Fprintf(io.Stderr, "disbursementd reports: %s %d: %v\n", decision, id, err)
	case de.Code == "store_failed" && de.Cause != nil:
		fmt.Fprintf(io.Stderr, "disbursementd reports: %s %d: the database failed: %s\n", decision, id, domain.MaskCredentials(de.Cause.Error()))
	case len(de.Problems) > 0:
		for _, p := range de.Problems {
			fmt.Fprintf(io.Stderr, "disbursementd reports: %s %d: %s: %s\n", decision, id, flagOf(p.Field), p.Message)
		}
	default:
		fmt.Fprintf(io.Stderr, "disbursementd reports: %s %d: %s\n", decision, id, de.Message)
	}
	return exitCode(err)
}

// flagOf names a decision's member as the command line sets it.
func flagOf(member string) string {
	switch member {
	case "reason_code":
		return "--reason-code"
	case "reason":
		return "--reason"
	}
	return member
}

// reportID reads the one report id of a command (before or after its
// flags) and parses the flags; on failure it has said why.
func reportID(p picked, io IO) (int64, int, bool) {
	id, code, ok := oneArg(p)
	if !ok {
		return 0, code, false
	}
	if id == "" {
		fmt.Fprintf(io.Stderr, "disbursementd reports %s: want one report id (see disbursementd reports %s --help)\n", p.name, p.name)
		return 0, ExitUsage, false
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != id {
		fmt.Fprintf(io.Stderr, "disbursementd reports %s: %q is not a report id (a positive integer)\n", p.name, id)
		return 0, ExitUsage, false
	}
	return n, ExitOK, true
}
