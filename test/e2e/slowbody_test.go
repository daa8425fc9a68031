package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// slowBody is a report whose body arrives a byte at a time: its headers
// (a valid token, Content-Length 4096), then "{", then one space every
// `every`, as the third round's attack sent it.
type slowBody struct {
	conn net.Conn
	stop chan struct{}
	done chan struct{}
}

func startSlowBody(t *testing.T, in *testkit.Instance, tok string, every time.Duration) *slowBody {
	t.Helper()
	c, err := net.Dial("tcp", in.Addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST /api/partner_api.php HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
		"Authentication-Type: bearer %s\r\nContent-Length: 4096\r\n\r\n{", tok)
	s := &slowBody{conn: c, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			select {
			case <-s.stop:
				return
			case <-time.After(every):
				if _, err := c.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	t.Cleanup(s.close)
	return s
}

// answer reads the answer the server sent on the slow connection, checks
// it against openapi.yaml (as testkit's watch checks the answers of
// http.DefaultClient) and returns it with its decoded body.
func (s *slowBody) answer(t *testing.T, in *testkit.Instance, within time.Duration) (*http.Response, map[string]any) {
	t.Helper()
	_ = s.conn.SetReadDeadline(time.Now().Add(within))
	resp, err := http.ReadResponse(bufio.NewReader(s.conn), nil)
	if err != nil {
		t.Fatalf("no answer on the slow connection within %s: %v", within, err)
	}
	raw, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	if bad := testkit.CheckAnswer("POST", in.URL+"/api/partner_api.php",
		http.Header{"Content-Type": {"application/json"}, "Authentication-Type": {"bearer x"}},
		resp.StatusCode, resp.Header, raw); len(bad) > 0 {
		t.Errorf("the %d answer does not conform to openapi.yaml: %v", resp.StatusCode, bad)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("answer %d %q: %v", resp.StatusCode, raw, err)
	}
	return resp, body
}

func (s *slowBody) close() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	_ = s.conn.Close()
	<-s.done
}

// receiving is the number of report bodies the service is receiving.
func receiving(t *testing.T, in *testkit.Instance) int {
	return testkit.Metric(t, in, "disbursementd_report_bodies_receiving")
}

// waitReceiving waits until the service is receiving n report bodies.
func waitReceiving(t *testing.T, in *testkit.Instance, n int) {
	t.Helper()
	testkit.WaitFor(t, fmt.Sprintf("%d bodies being received", n), 20*time.Second, func() bool { return receiving(t, in) == n })
}

// partners adds n partners (acme-0, acme-1, …, each with a NIT of its
// own: the bounds are a partner's, all its user names together) and
// returns a token of each.
func partners(t *testing.T, in *testkit.Instance, n int) []string {
	t.Helper()
	toks := make([]string, n)
	for j := range toks {
		name := fmt.Sprintf("%s-%d", testkit.Partner, j)
		in.AddUser(t, name, fmt.Sprintf("8001234%02d", j), testkit.Password)
		toks[j] = in.Token(t, name, testkit.Password)
	}
	return toks
}

// TestSlowBodiesHoldNoReportSlot: six bodies arriving a byte at a time,
// with one partner's token, against http.max_in_flight=4: another
// partner's report, and the same partner's own complete one, still get
// 200, because a body being received holds no in-flight slot.
func TestSlowBodiesHoldNoReportSlot(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t, func(c *config.Config) {
		c.HTTP.MaxInFlight, c.HTTP.MaxReceiving, c.HTTP.MaxReceivingPerPartner = 4, 16, 8
		c.HTTP.BodyRateGrace = time.Minute // the slow bodies stay for the test
	})
	toks := partners(t, in, 2)
	for range 6 {
		startSlowBody(t, in, toks[0], 2*time.Second)
	}
	testkit.WaitFor(t, "6 slow bodies being received or turned away", 20*time.Second, func() bool {
		return receiving(t, in) == 6 || testkit.Metric(t, in, "disbursementd_reports_overloaded_total") > 0
	})
	for j, who := range []string{"another partner's report", "the slow partner's own complete report"} {
		tok := toks[1-j]
		if r := in.Report(t, tok, testkit.MustJSON(fixture.Minimal(time.Now(), fmt.Sprintf("CR-SLOWB-%d", j)))); r.Status != 200 {
			t.Fatalf("%s beside 6 slow bodies: %d %s", who, r.Status, r.Raw)
		}
	}
	if n := receiving(t, in); n != 6 {
		t.Fatalf("%d bodies being received after the reports, want the 6 slow ones", n)
	}
}

// TestSlowBodiesAreBoundedPerPartnerAndInAll: past
// http.max_receiving_per_partner one partner's next body gets 503
// overloaded with Retry-After (and the connection closes); past
// http.max_receiving anyone's does; a place given back is taken again.
func TestSlowBodiesAreBoundedPerPartnerAndInAll(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t, func(c *config.Config) {
		c.HTTP.MaxInFlight, c.HTTP.MaxReceiving, c.HTTP.MaxReceivingPerPartner = 4, 5, 3
		c.HTTP.BodyRateGrace = time.Minute
	})
	toks := partners(t, in, 3)
	var slow []*slowBody
	for range 3 {
		slow = append(slow, startSlowBody(t, in, toks[0], 2*time.Second))
	}
	waitReceiving(t, in, 3)
	refused := func(who string, tok string) {
		t.Helper()
		s := startSlowBody(t, in, tok, 2*time.Second)
		resp, body := s.answer(t, in, 10*time.Second)
		if resp.StatusCode != 503 || body["code"] != "overloaded" || body["status"] != "400" || resp.Header.Get("Retry-After") == "" || !resp.Close {
			t.Fatalf("%s: %d %v %v, want 503 overloaded with Retry-After, connection closed", who, resp.StatusCode, body, resp.Header)
		}
	}
	refused("the partner's 4th slow body", toks[0])
	for range 2 {
		slow = append(slow, startSlowBody(t, in, toks[1], 2*time.Second))
	}
	waitReceiving(t, in, 5)
	refused("a third partner's body with 5 being received", toks[2])
	slow[0].close()
	waitReceiving(t, in, 4)
	if r := in.Report(t, toks[2], testkit.MustJSON(fixture.Minimal(time.Now(), "CR-SLOWB-FREE"))); r.Status != 200 {
		t.Fatalf("report once a place was free: %d %s", r.Status, r.Raw)
	}
}

// TestSlowBodyIsCut: a body averaging less than http.min_body_rate once
// http.body_rate_grace has passed is answered 408 body_too_slow (status
// "400") and its connection is closed; a report sent at an ordinary pace
// under the same settings is stored.
func TestSlowBodyIsCut(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t, func(c *config.Config) {
		c.HTTP.BodyRateGrace = time.Second
		c.HTTP.MinBodyRate = 1 << 10
	})
	toks := partners(t, in, 1)
	s := startSlowBody(t, in, toks[0], 2*time.Second)
	resp, body := s.answer(t, in, 20*time.Second)
	if resp.StatusCode != http.StatusRequestTimeout || body["status"] != "400" || body["code"] != "body_too_slow" || !resp.Close {
		t.Fatalf("slow body: %d %v %v, want 408 body_too_slow with status \"400\", connection closed", resp.StatusCode, body, resp.Header)
	}
	if _, err := io.ReadAll(s.conn); err != nil {
		t.Fatalf("the connection stayed open after the 408: %v", err)
	}
	if r := in.Report(t, toks[0], testkit.MustJSON(fixture.FullBody(time.Now(), "CR-SLOWB-OK", fixture.PDF(2<<20)))); r.Status != 200 {
		t.Fatalf("a report at an ordinary pace: %d %s", r.Status, r.Raw)
	}
	if n := testkit.Metric(t, in, "disbursementd_report_bodies_too_slow_total"); n != 1 {
		t.Errorf("disbursementd_report_bodies_too_slow_total = %d, want 1", n)
	}
}
