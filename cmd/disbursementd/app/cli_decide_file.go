package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

const decideHelp = "Applies the decisions of a CSV file, each line on its own (contract §11), as the operator\n" +
	"running the command (cli:USER). The file is UTF-8 with a header line naming its columns:\n" +
	"  id,decision,reason_code,reason\n" +
	"  42,accepted,,\n" +
	"  43,rejected,monto_no_coincide,El monto no coincide con el pagaré\n" +
	"decision is accepted or rejected; reason_code (one of decisions.reason_codes) and reason (1 to 500\n" +
	"characters) go with rejected only; the reason_code and reason columns may be left out of a file of\n" +
	"acceptances. A BOM, CRLF line ends and ';' as the separator (what Excel writes) are accepted.\n" +
	"Prints each refused line with its number and what to change, then how many lines were applied,\n" +
	"already so, in conflict, not found and invalid. A file may be applied again: lines already so change\n" +
	"nothing. Exit code 0 when every line is applied or already so; else the code of the first refused\n" +
	"line (2 invalid, 3 in conflict or not found, 1 the database failed); 2 when the file cannot be read."

// maxDecisionFile bounds a decisions file (some hundred thousand lines).
const maxDecisionFile = 64 << 20

// decideColumns are a decisions file's columns; id and decision are
// required.
var decideColumns = []string{"id", "decision", "reason_code", "reason"}

// decideTally counts what became of a file's lines.
type decideTally struct {
	applied, alreadySo, conflict, notFound, invalid, failed int
	firstRefused                                            error
}

// reportsDecideFile runs "reports decide --file FILE".
func reportsDecideFile(ctx context.Context, p picked, io IO) int {
	file := p.fs.String("file", "", "the CSV file of decisions (- for standard input)")
	if code, ok := parse(p.fs, p.args); !ok {
		return code
	}
	if *file == "" {
		fmt.Fprintln(io.Stderr, "disbursementd reports decide: --file FILE is required (see disbursementd reports decide --help)")
		return ExitUsage
	}
	data, err := readDecisionFile(*file, io)
	if err != nil {
		fmt.Fprintf(io.Stderr, "disbursementd reports decide: %v\n", err)
		return ExitUsage
	}
	return withDecisions(ctx, *p.cfgPath, io, "disbursementd reports decide", func(c s11Cases) int {
		return decideFile(ctx, c.decisions, data, domain.DecidedByCLI(cliUser()), io)
	})
}

func readDecisionFile(name string, in IO) ([]byte, error) {
	r := in.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := readAtMost(r, maxDecisionFile)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return data, nil
}

func readAtMost(r io.Reader, n int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, n+1))
	if err == nil && int64(len(data)) > n {
		err = fmt.Errorf("larger than %d MiB; split it", n>>20)
	}
	return data, err
}

// decideFile applies every line of a decisions file on its own, says what
// to change in each refused one, and prints the counts.
func decideFile(ctx context.Context, d *ports.Decisions, data []byte, by string, out IO) int {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1 // a short line is that line's problem, not the file's
	r.Comma = separator(data)
	header, err := r.Read()
	if err != nil {
		fmt.Fprintln(out.Stderr, "disbursementd reports decide: no header line: the first line names the columns id,decision,reason_code,reason")
		return ExitUsage
	}
	cols, err := headerColumns(header)
	if err != nil {
		fmt.Fprintln(out.Stderr, "disbursementd reports decide: header line:", err)
		return ExitUsage
	}
	var t decideTally
	refuse := func(line int, kind *int, err error, format string, a ...any) {
		*kind++
		if t.firstRefused == nil {
			t.firstRefused = err
		}
		fmt.Fprintf(out.Stdout, "line %d: %s\n", line, fmt.Sprintf(format, a...))
	}
	for {
		rec, err := r.Read()
		line, _ := r.FieldPos(0)
		var pe *csv.ParseError
		switch {
		case errors.Is(err, io.EOF):
			return t.report(out)
		case errors.As(err, &pe):
			refuse(pe.StartLine, &t.invalid, invalidLine, "not CSV (%v): check its quotes", pe.Err)
			continue
		case err != nil:
			fmt.Fprintln(out.Stderr, "disbursementd reports decide:", err)
			return ExitFailure
		case len(rec) != len(header):
			refuse(line, &t.invalid, invalidLine, "%d columns, the header has %d (%s): give every column, empty when it has no value",
				len(rec), len(header), strings.Join(header, ","))
			continue
		}
		if bad := slices.IndexFunc(rec, func(s string) bool { return !utf8.ValidString(s) }); bad >= 0 {
			refuse(line, &t.invalid, invalidLine, "%s is not UTF-8: save the file as \"CSV UTF-8\"", header[bad])
			continue
		}
		id, err := strconv.ParseInt(strings.TrimSpace(rec[cols["id"]]), 10, 64)
		if err != nil || id <= 0 {
			refuse(line, &t.invalid, invalidLine, "id %q is not a report id (a positive integer)", domain.Clip(rec[cols["id"]]))
			continue
		}
		req := domain.DecisionRequest{Decision: strings.TrimSpace(rec[cols["decision"]])}
		if i, ok := cols["reason_code"]; ok {
			req.ReasonCode = strings.TrimSpace(rec[i])
		}
		if i, ok := cols["reason"]; ok {
			req.Reason = rec[i]
		}
		receipt, did, err := d.Decide(ctx, id, req, by)
		switch {
		case err == nil && did == ports.DecisionAlreadySo:
			t.alreadySo++
		case err == nil:
			t.applied++
		case domain.IsKind(err, domain.ErrInvalidInput):
			refuse(line, &t.invalid, err, "report %d: %s", id, problemsText(err))
		case domain.IsKind(err, domain.ErrNotFound):
			refuse(line, &t.notFound, err, "report %d: not found: check the id", id)
		case domain.IsKind(err, domain.ErrConflict):
			refuse(line, &t.conflict, err, "report %d: in conflict: it is %s already (decisions are final; leave it out)", id, receipt.Status)
		default:
			refuse(line, &t.failed, err, "report %d: not recorded (%s): apply the file again", id, domain.MaskError(err))
		}
	}
}

// invalidLine is the kind of a line refused before any decision.
var invalidLine = domain.NewError(domain.ErrInvalidInput, "invalid_line", "invalid line")

// report prints the counts and returns the exit code.
func (t decideTally) report(out IO) int {
	fmt.Fprintf(out.Stdout, "applied %d, already so %d, in conflict %d, not found %d, invalid %d", t.applied, t.alreadySo, t.conflict, t.notFound, t.invalid)
	if t.failed > 0 {
		fmt.Fprintf(out.Stdout, ", not recorded (the database failed) %d", t.failed)
	}
	fmt.Fprintln(out.Stdout)
	if t.firstRefused == nil {
		return ExitOK
	}
	return exitCode(t.firstRefused)
}

// problemsText is what a refused decision's problems say, by member.
func problemsText(err error) string {
	var de *domain.Error
	if !errors.As(err, &de) || len(de.Problems) == 0 {
		return domain.MaskError(err).Error()
	}
	parts := make([]string, len(de.Problems))
	for i, p := range de.Problems {
		parts[i] = p.Field + ": " + p.Message
	}
	return strings.Join(parts, "; ")
}

// separator is the file's column separator: ';' when the header line has
// one and no ',' (Excel in a locale whose decimal mark is the comma).
func separator(data []byte) rune {
	first, _, _ := bufio.NewReader(bytes.NewReader(data)).ReadLine()
	if bytes.IndexByte(first, ';') >= 0 && bytes.IndexByte(first, ',') < 0 {
		return ';'
	}
	return ','
}

// headerColumns maps the header's column names to their places: each of
// decideColumns at most once, id and decision present, nothing else.
func headerColumns(header []string) (map[string]int, error) {
	cols := map[string]int{}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(h))
		switch _, twice := cols[name]; {
		case !slices.Contains(decideColumns, name):
			return nil, fmt.Errorf("unknown column %q; the columns are %s", domain.Clip(h), strings.Join(decideColumns, ","))
		case twice:
			return nil, fmt.Errorf("column %q is named twice", name)
		}
		cols[name] = i
	}
	for _, need := range decideColumns[:2] {
		if _, ok := cols[need]; !ok {
			return nil, fmt.Errorf("no %s column; the columns are %s", need, strings.Join(decideColumns, ","))
		}
	}
	return cols, nil
}
