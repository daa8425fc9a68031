package soak

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql" // the database the soak reads at the end

	"github.com/lender/disbursementd/test/proc"
)

// BackofficeClient is the name of the back-office client the soak's
// decider authenticates as; its decisions are recorded as
// backoffice:BackofficeClient.
const BackofficeClient = "soak-backoffice"

// whSoak is one webhook soak in progress: the partner's side is the
// issue-17 soak's (its fleet, token, client, mix and answers), with the
// back office, the receiver and the database beside it.
type whSoak struct {
	*soak
	wc       *WebhookConfig
	res      *WebhookResult
	admin    []string // replica i's internal listener (http.metrics_addr), as a base URL
	boSecret string   // the back-office client's secret
	whSecret string   // the endpoint's signing secret
	rcv      *receiver
	db       *sql.DB
}

// setUpWebhooks starts the receiver, prepares the database (migrate, the
// partner, the back-office client), starts the replicas, and registers
// the partner's endpoint aimed at the receiver.
func setUpWebhooks(ctx context.Context, c *WebhookConfig) (_ *whSoak, err error) {
	base := &Config{Binary: c.Binary, Dir: c.Dir, DSN: c.DSN, Env: c.Env, Logs: c.Logs, Progress: c.Progress,
		Duration: c.Duration, Concurrency: c.Concurrency, Replicas: c.Replicas, Drain: c.Drain}
	s := &soak{c: base, res: newResult(base), reports: newMix(0), client: &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 2 * (c.Concurrency + c.Deciders)}}}
	w := &whSoak{soak: s, wc: c, res: newWebhookResult(s.res, c)}
	defer func() {
		if err != nil {
			w.tearDown()
		}
	}()
	if w.rcv, err = newReceiver(c.FailShare, filepath.Join(c.Dir, "deliveries.jsonl")); err != nil {
		return nil, err
	}
	if w.db, err = sql.Open("mysql", c.DSN); err != nil {
		return nil, fmt.Errorf("webhook soak: DSN: %w", err)
	}
	keys := filepath.Join(c.Dir, "keys")
	if out, err := proc.CLI(c.Binary, c.Dir, c.Env, "", "keygen", "--out", keys); err != nil {
		return nil, fmt.Errorf("keygen: %v\n%s", err, out)
	}
	common := append(append([]string{}, c.Env...),
		"DISB_AUTH_BCRYPT_COST=10", "DISB_LOG_FORMAT=json", "DISB_THROTTLE_BACKEND=database",
		"DISB_AUTH_PRIVATE_KEY_FILE="+filepath.Join(keys, "private.pem"),
		"DISB_STORE_DRIVER=mysql", "DISB_STORE_DSN="+c.DSN,
		"DISB_WEBHOOKS_ALLOW_INSECURE_HOSTS=127.0.0.1", "DISB_WEBHOOKS_RETRY_SCHEDULE="+c.schedule(),
		"DISB_WEBHOOKS_TIMEOUT="+c.Timeout.String(), "DISB_WEBHOOKS_WORKERS=16", "DISB_WEBHOOKS_WORKERS_PER_ENDPOINT=8")
	s.direct = common
	if out, err := proc.CLI(c.Binary, c.Dir, common, "", "migrate"); err != nil {
		return nil, fmt.Errorf("migrate: %v\n%s", err, out)
	}
	if out, err := proc.CLI(c.Binary, c.Dir, common, Password+"\n", "users", "add", "--user", User, "--nit", NIT); err != nil {
		return nil, fmt.Errorf("users add: %v\n%s", err, out)
	}
	out, err := proc.CLI(c.Binary, c.Dir, common, "", "backoffice", "add", "--name", BackofficeClient)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if w.boSecret = lines[len(lines)-1]; err != nil || !strings.HasPrefix(w.boSecret, "bo_") {
		return nil, fmt.Errorf("backoffice add: %v (%d lines of output, the last not a secret)", err, len(lines))
	}
	internal := make([]string, c.Replicas)
	for i := range internal {
		port, err := proc.FreePort()
		if err != nil {
			return nil, err
		}
		internal[i] = "127.0.0.1:" + port
		w.admin = append(w.admin, "http://"+internal[i])
	}
	s.fleet = &fleet{c: base, env: func(i int) []string {
		return append(append([]string{}, common...), "DISB_HTTP_METRICS_ADDR="+internal[i])
	}}
	for i := range c.Replicas {
		if err := s.fleet.start(i); err != nil {
			return nil, err
		}
	}
	if s.token, err = s.login(ctx, s.fleet.url(0)); err != nil {
		return nil, err
	}
	if err := w.register(ctx); err != nil {
		return nil, err
	}
	c.Progress("webhook soak: %d replicas up; endpoint aimed at %s; retry schedule %s", c.Replicas, w.rcv.url(), c.schedule())
	return w, nil
}

// register creates the partner's endpoint, every event type, aimed at
// the receiver, and keeps its secret.
func (w *whSoak) register(ctx context.Context) error {
	body := fmt.Sprintf(`{"url":%q,"description":"soak receiver"}`, w.rcv.url()+"/hook")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.fleet.url(0)+"/v1/webhook_endpoints", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+w.token)
	resp, err := w.client.Do(req)
	if err != nil {
		return fmt.Errorf("POST /v1/webhook_endpoints: %w", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var ep struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(raw, &ep) != nil || !strings.HasPrefix(ep.Secret, "whsec_") {
		return fmt.Errorf("POST /v1/webhook_endpoints: %d (no endpoint with a secret)", resp.StatusCode)
	}
	w.whSecret, w.res.Endpoint = ep.Secret, ep.ID
	w.res.Secrets = []string{w.whSecret, w.boSecret}
	return nil
}

// tearDown stops the replicas, then the receiver.
func (w *whSoak) tearDown() {
	if w.fleet != nil {
		w.fleet.stopAll()
	}
	if w.rcv != nil {
		w.rcv.close()
	}
	if w.db != nil {
		_ = w.db.Close()
	}
}

// scanAll runs query on db and calls each with every row's Scan.
func scanAll(ctx context.Context, db *sql.DB, query string, each func(scan func(...any) error) error) error {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return fmt.Errorf("%s: %w", query, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows.Scan); err != nil {
			return fmt.Errorf("%s: %w", query, err)
		}
	}
	return rows.Err()
}
