package webhooks_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lender/disbursementd/adapters/metrics"
	"github.com/lender/disbursementd/adapters/webhooks"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
)

// oracleDir holds the standardwebhooks npm package (test/sworacle).
const oracleDir = "../../test/sworacle"

// requireOracle returns the node that runs the oracle; it skips, or under
// CI=true fails, when Node.js or the installed package is missing.
func requireOracle(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(oracleDir, "node_modules", "standardwebhooks", "package.json"))
	}
	if err != nil {
		msg := "the Standard Webhooks oracle is not installed (source test/node.sh && use_node && bash test/sworacle/install): " + err.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and " + msg)
		}
		t.Skip(msg)
	}
	return node
}

// captured is one POST as the receiver got it.
type captured struct {
	path   string
	header http.Header
	body   []byte
}

// oracleCase is one delivery for verify.mjs to judge under one secret.
type oracleCase struct {
	Secret  string            `json:"secret"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// wallClock is the time now: the oracle refuses a timestamp five minutes
// from its own clock.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

// utf8Encoder writes a body with text beyond ASCII, so the signed bytes
// are the body's bytes and not a re-encoding of them.
type utf8Encoder struct{}

func (utf8Encoder) WebhookBody(e domain.Event) ([]byte, error) {
	return json.Marshal(map[string]any{"type": e.Type, "timestamp": e.CreatedAt.UTC().Format(time.RFC3339),
		"data": map[string]any{"id": e.Receipt.ID, "reason": "Monto no coincide: año ñandú € 😀"}})
}

// TestSignaturesAgainstStandardWebhooks (issue 33): real deliveries,
// made by the delivery worker through the real sender to a receiver on
// loopback, are accepted by the standardwebhooks npm package, an
// implementation that is not ours: under the endpoint's secret and,
// within a rotation's overlap, under the new secret and the previous one
// alike (two signatures in one header). A body, an id or a timestamp
// changed by one byte, or another secret, is refused by it.
func TestSignaturesAgainstStandardWebhooks(t *testing.T) {
	node := requireOracle(t)
	t.Parallel()
	var mu sync.Mutex
	var got []captured
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, captured{path: r.URL.Path, header: r.Header.Clone(), body: body})
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rcv.Close)

	secret := func(c byte) domain.WebhookSecret {
		s, _ := domain.NewWebhookSecret(bytes.Repeat([]byte{c}, domain.WebhookSecretBytes))
		return s
	}
	one, current, previous, stranger := secret('1'), secret('n'), secret('p'), secret('x')
	store := fakes.NewDeliveryStore()
	store.AddEndpoint(domain.Endpoint{ID: "we_one", PartnerUser: "p", URL: rcv.URL + "/one", Status: domain.EndpointEnabled,
		Secret: one, CreatedAt: time.Now()})
	store.AddEndpoint(domain.Endpoint{ID: "we_rot", PartnerUser: "p", URL: rcv.URL + "/rot", Status: domain.EndpointEnabled,
		Secret: current, PreviousSecret: previous, PreviousUntil: time.Now().Add(domain.SecretOverlap), CreatedAt: time.Now()})
	for i := range 3 {
		store.AddEvent(domain.Event{Type: domain.EventRejected, CreatedAt: time.Now().UTC(), PartnerUser: "p",
			Receipt: domain.StoredReceipt{ID: int64(i + 1)}})
	}
	sender, err := webhooks.NewSender(webhooks.Options{Timeout: 5 * time.Second, InsecureHosts: []string{"127.0.0.1"}, MaxConnsPerHost: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sender.Close() })
	obs, err := metrics.NewDeliveries(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	d, err := ports.NewDeliveries(store, sender, utf8Encoder{}, wallClock{}, obs, ports.DeliveryOptions{Timeout: 5 * time.Second,
		Workers: 4, WorkersPerEndpoint: 2, PollInterval: 10 * time.Millisecond, DisableAfter: time.Hour, Schedule: domain.DefaultRetrySchedule})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.Run(context.Background()) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n == 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries after 10 s, want 6", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	d.Close()
	<-done

	var cases []oracleCase
	var want []bool
	add := func(s domain.WebhookSecret, c captured, ok bool, edit func(h map[string]string, body []byte) []byte) {
		h := map[string]string{}
		for _, k := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
			h[k] = c.header.Get(k)
		}
		body := bytes.Clone(c.body)
		if edit != nil {
			body = edit(h, body)
		}
		cases = append(cases, oracleCase{Secret: string(s), Headers: h, Body: base64.StdEncoding.EncodeToString(body)})
		want = append(want, ok)
	}
	for _, c := range got {
		if !strings.Contains(string(c.body), "ñandú € 😀") {
			t.Errorf("%s: body %q is not the encoder's", c.path, c.body)
		}
		sigs := strings.Fields(c.header.Get("webhook-signature"))
		switch c.path {
		case "/one":
			if len(sigs) != 1 {
				t.Errorf("one secret, signatures %v", sigs)
			}
			add(one, c, true, nil)
			add(current, c, false, nil)
		case "/rot":
			if len(sigs) != 2 {
				t.Errorf("within a rotation's overlap, signatures %v, want two", sigs)
			}
			add(current, c, true, nil)
			add(previous, c, true, nil)
			add(stranger, c, false, nil)
		}
		add(one, c, c.path == "/one", nil)
		add(current, c, false, func(_ map[string]string, b []byte) []byte { b[len(b)-2] ^= 1; return b })
		add(one, c, false, func(_ map[string]string, b []byte) []byte { return append(b, ' ') })
		add(previous, c, false, func(h map[string]string, b []byte) []byte { h["webhook-id"] += "0"; return b })
		add(current, c, false, func(h map[string]string, b []byte) []byte {
			ts, _ := strconv.ParseInt(h["webhook-timestamp"], 10, 64)
			h["webhook-timestamp"] = strconv.FormatInt(ts+1, 10)
			return b
		})
	}
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "verify.mjs")
	cmd.Dir, cmd.Stdin = oracleDir, bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node verify.mjs: %v\n%s", err, stderr.String())
	}
	var results []struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(out, &results); err != nil || len(results) != len(cases) {
		t.Fatalf("verify.mjs said %s (%v); want %d results", out, err, len(cases))
	}
	accepted := 0
	for i, r := range results {
		if r.OK != want[i] {
			t.Errorf("case %d (%s under %.10s…): the library says ok=%v (%s), want %v", i, cases[i].Headers["webhook-id"], cases[i].Secret, r.OK, r.Error, want[i])
		}
		if r.OK {
			accepted++
		}
	}
	if accepted != 12 || len(results) != 45 {
		t.Errorf("%d of %d cases accepted, want 12 of 45", accepted, len(results))
	}
}
