package app

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
)

// decisionsOn returns the decisions use case on a fake store holding n
// reports of acme's (ids 1 to n).
func decisionsOn(t *testing.T, n int) (*ports.Decisions, *fakes.Outbox) {
	t.Helper()
	store := fakes.NewOutbox()
	at := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	for i := range n {
		rep, err := domain.DefaultCatalogue().RestoreReport(func(int, domain.Field) any { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := store.StoreReport(context.Background(), domain.StagedReport{PartnerUser: "acme", Report: rep, ReceivedAt: at},
			domain.IdempotencyRecord{User: "acme", KeyHash: string(rune('a' + i))}); err != nil {
			t.Fatal(err)
		}
	}
	rules, err := domain.NewDecisionRules(domain.DefaultReasonCodes)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ports.NewDecisions(store, rules, fakes.NewClock(at.Add(time.Hour)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return d, store
}

func testIO() (IO, *bytes.Buffer, *bytes.Buffer) {
	var out, errs bytes.Buffer
	return IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs}, &out, &errs
}

// TestDecideFileEachLineOnItsOwn: a decisions file as Excel writes it
// (a BOM, CRLF line ends) is applied line by line: each refused line is
// named by its number with what to change, the rest are applied, and the
// counts of applied, already so, in conflict, not found and invalid lines
// close the output; the exit code is the first refused line's.
func TestDecideFileEachLineOnItsOwn(t *testing.T) {
	d, store := decisionsOn(t, 4)
	if _, _, err := d.Decide(context.Background(), 3, domain.DecisionRequest{Decision: "accepted"}, "cli:ana"); err != nil {
		t.Fatal(err)
	}
	file := "\xEF\xBB\xBFid,decision,reason_code,reason\r\n" +
		"1,accepted,,\r\n" + // line 2: applied
		"2,rejected,monto_no_coincide,\"El monto, con coma, no coincide\"\r\n" + // line 3: applied
		"3,accepted,,\r\n" + // line 4: already so
		"4,rejected,caro,no\r\n" + // line 5: invalid code
		"99,accepted,,\r\n" + // line 6: not found
		"3,rejected,otro,x\r\n" + // line 7: in conflict
		"abc,accepted,,\r\n" + // line 8: not an id
		"4,accepted\r\n" + // line 9: a missing column
		"4,rejected,otro,\"" + strings.Repeat("é", 501) + "\"\r\n" + // line 10: reason too long
		"4,rejected,otro,\xff\xfe\r\n" // line 11: not UTF-8
	io, out, _ := testIO()
	code := decideFile(context.Background(), d, []byte(file), "cli:ana", io)
	got := out.String()
	for _, want := range []string{
		"line 5: report 4: reason_code: no es un código configurado: monto_no_coincide",
		"line 6: report 99: not found",
		"line 7: report 3: in conflict: it is accepted already",
		`line 8: id "abc" is not a report id`,
		"line 9: 2 columns, the header has 4",
		"line 10: report 4: reason: tiene 501 caracteres",
		`line 11: reason is not UTF-8: save the file as "CSV UTF-8"`,
		"applied 2, already so 1, in conflict 1, not found 1, invalid 5\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if code != ExitUsage {
		t.Errorf("exit %d, want %d (line 5, the first refused, is invalid)", code, ExitUsage)
	}
	r, err := store.GetReport(context.Background(), "acme", 2)
	if err != nil || r.Status != domain.StatusRejected || r.Decision.Reason != "El monto, con coma, no coincide" || r.Decision.By != "cli:ana" {
		t.Fatalf("report 2: %+v %v", r.StoredReceipt, err)
	}
	if r, _ := store.GetReport(context.Background(), "acme", 4); r.Status != domain.StatusReceived {
		t.Fatalf("report 4 changed by refused lines: %s", r.Status)
	}
	// The same file again: what was applied is already so, nothing changes.
	io, out, _ = testIO()
	decideFile(context.Background(), d, []byte(file), "cli:ana", io)
	if !strings.Contains(out.String(), "applied 0, already so 3, in conflict 1, not found 1, invalid 5") {
		t.Errorf("applied again: %s", out.String())
	}
}

// TestDecideFileExitCodes: every line applied or already so is exit 0; a
// file of acceptances needs no reason columns and may use ';' (Excel in a
// Spanish locale); a conflict alone exits 3; a bad header exits 2 and
// applies nothing.
func TestDecideFileExitCodes(t *testing.T) {
	d, store := decisionsOn(t, 3)
	for _, tt := range []struct {
		name, file string
		code       int
		says       string
	}{
		{"acceptances with ';'", "id;decision\n1;accepted\n2;accepted\n", ExitOK, "applied 2, already so 0"},
		{"again", "id;decision\n1;accepted\n", ExitOK, "applied 0, already so 1"},
		{"a conflict, columns in another order", "decision,id,reason,reason_code\nrejected,1,x,otro\n", ExitExists, "line 2: report 1: in conflict"},
		{"an unknown column", "id,decision,motivo\n3,accepted,x\n", ExitUsage, `unknown column "motivo"`},
		{"no decision column", "id\n3\n", ExitUsage, "no decision column"},
		{"empty", "", ExitUsage, "no header line"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			io, out, errs := testIO()
			code := decideFile(context.Background(), d, []byte(tt.file), "cli:ana", io)
			if code != tt.code || !strings.Contains(out.String()+errs.String(), tt.says) {
				t.Errorf("exit %d, output %q %q; want %d saying %q", code, out.String(), errs.String(), tt.code, tt.says)
			}
		})
	}
	if r, _ := store.GetReport(context.Background(), "acme", 3); r.Status != domain.StatusReceived {
		t.Fatalf("a refused file decided report 3: %s", r.Status)
	}
}

// TestDecideOne: reports accept and reject say what they did and exit
// through the exit table: 0 applied or already so, 3 in conflict or not
// found, 2 a bad reason code, naming the flag to change.
func TestDecideOne(t *testing.T) {
	d, _ := decisionsOn(t, 1)
	ctx := context.Background()
	for _, tt := range []struct {
		id   int64
		req  domain.DecisionRequest
		code int
		says string
	}{
		{1, domain.DecisionRequest{Decision: "rejected", ReasonCode: "nope", Reason: "x"}, ExitUsage, "--reason-code: no es un código configurado"},
		{1, domain.DecisionRequest{Decision: "accepted"}, ExitOK, "report 1: accepted by cli:ana at 2026-11-26T11:00:00.000Z"},
		{1, domain.DecisionRequest{Decision: "accepted"}, ExitOK, "report 1: already accepted (by cli:ana"},
		{1, domain.DecisionRequest{Decision: "rejected", ReasonCode: "otro", Reason: "x"}, ExitExists, "ya tiene otra decisión"},
		{7, domain.DecisionRequest{Decision: "accepted"}, ExitNotFound, "no encontrado"},
	} {
		io, out, errs := testIO()
		if code := decideOne(ctx, d, tt.id, tt.req, "cli:ana", io); code != tt.code || !strings.Contains(out.String()+errs.String(), tt.says) {
			t.Errorf("%d %+v: exit %d %q %q, want %d saying %q", tt.id, tt.req, code, out.String(), errs.String(), tt.code, tt.says)
		}
	}
}

// TestCLIUserIsTheOperator: decisions made with sudo record the operator
// behind it, and a name is made printable.
func TestCLIUserIsTheOperator(t *testing.T) {
	t.Setenv("SUDO_USER", "ana maría")
	if got := cliUser(); got != "ana_mar_a" {
		t.Errorf("cliUser = %q", got)
	}
	t.Setenv("SUDO_USER", "")
	if got := cliUser(); got == "" || strings.ContainsAny(got, " \t\n") {
		t.Errorf("cliUser without sudo = %q", got)
	}
}
