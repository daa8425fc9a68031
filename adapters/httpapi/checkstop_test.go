package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
	"github.com/lender/disbursementd/test/fixture"
)

// realReports is the reports use case itself (ports.Reports, its file
// check domain's and filecheck's) on in-memory fakes of its stores.
func realReports(t *testing.T) *ports.Reports {
	t.Helper()
	clock := fakes.NewClock(time.Now())
	r, err := ports.NewReports(domain.DefaultCatalogue(), fixture.FileRules(), fakes.NewReportStore(), fakes.NewUploads(clock), clock,
		ports.ReportsOptions{KeyTTL: 24 * time.Hour, Wait: time.Second, Poll: time.Millisecond, Stale: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// v1ReportWithFile is a /v1 report body whose file is a PDF of size bytes.
func v1ReportWithFile(size int) string {
	body := fixture.DecimalsAsStrings(fixture.Minimal(time.Now(), "CR-STOP-1"))
	body["Documento Soporte"] = fixture.FileDto(fixture.PDF(size), "")
	return string(fixture.JSON(body))
}

// TestCheckStopsAtReportTimeout: through the real handler and use case, a
// report whose http.report_timeout has passed when its file is checked
// is not checked on: the check stops, and the answer is 503
// file_check_stopped (retry), on POST /v1/reports/validate and on POST
// /v1/reports, where nothing is stored.
func TestCheckStopsAtReportTimeout(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Limits{ReportTimeout: time.Hour})
	reports := realReports(t)
	h.rebuild(t, func(s *Server) { s.Reports, s.Validator, s.Lookup = reports, reports, &fakeV1{} })
	hdr := map[string]string{"Authorization": "Bearer good", "Content-Type": "application/json"}
	if a := h.do(t, "POST", "/v1/reports/validate", hdr, v1ReportWithFile(300<<10)); a.status != http.StatusOK {
		t.Fatalf("within its time: %d %s", a.status, a.raw)
	}
	h.rebuild(t, func(s *Server) { s.Limits.ReportTimeout = time.Nanosecond })
	for _, path := range []string{"/v1/reports/validate", "/v1/reports"} {
		a := h.do(t, "POST", path, hdr, v1ReportWithFile(300<<10))
		if a.status != http.StatusServiceUnavailable || a.body["code"] != domain.CodeFileCheckStopped {
			t.Fatalf("%s: %d %s; want 503 %s", path, a.status, a.raw, domain.CodeFileCheckStopped)
		}
	}
}

// goneFirst runs the real use case's Validate only once its client has
// gone, as a report whose partner hangs up while it waits for a slot or
// while its file is checked.
type goneFirst struct {
	real *ports.Reports
	err  chan error
}

func (g *goneFirst) Validate(ctx context.Context, sub ports.Submission) error {
	select {
	case <-sub.Client.Done():
	case <-time.After(10 * time.Second):
		g.err <- errors.New("the client never went")
		return nil
	}
	err := g.real.Validate(ctx, sub)
	g.err <- err
	return err
}

// TestCheckStopsWhenClientGoes: through the real handler and use case, a
// partner that sends a report and hangs up before its file is checked
// stops the check (the report's own context, which outlives the client
// for the store's sake, does not).
func TestCheckStopsWhenClientGoes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Limits{ReportTimeout: time.Hour})
	g := &goneFirst{real: realReports(t), err: make(chan error, 1)}
	h.rebuild(t, func(s *Server) { s.Validator, s.Lookup = g, &fakeV1{} })
	body := v1ReportWithFile(300 << 10)
	conn, err := net.Dial("tcp", h.url[len("http://"):])
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /v1/reports/validate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer good\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\n\r\n%s", len(body), body)
	conn.Close()
	select {
	case err := <-g.err:
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != domain.CodeFileCheckStopped || !errors.Is(err, domain.ErrUnavailable) {
			t.Fatalf("Validate after the client left: %v; want %s", err, domain.CodeFileCheckStopped)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Validate never ran")
	}
}
