package soak

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/test/faultproxy"
	"github.com/lender/disbursementd/test/proc"
)

// The partner the soak reports as.
const (
	User     = "soak-partner"
	NIT      = "900123456-8"
	Password = "soak partner's password 17"
)

// soak is one run in progress.
type soak struct {
	c       *Config
	res     *Result
	mysql   *faultproxy.MySQL
	s3      *faultproxy.HTTP
	plan    *faultPlan
	direct  []string // commands' environment: straight to the database and the bucket
	served  []string // the replicas': through the proxies
	fleet   *fleet
	token   string
	client  *http.Client
	reports *mix
	drainBy atomic.Int64 // Unix nanoseconds; 0 while the load runs
}

// setDrainDeadline says when reports still without a 200 are given up.
func (s *soak) setDrainDeadline(t time.Time) { s.drainBy.Store(t.UnixNano()) }

// drainDeadline is that time, or zero while the load runs.
func (s *soak) drainDeadline() time.Time {
	if n := s.drainBy.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// setUp starts the proxies, prepares the database (migrate, the partner)
// and starts the replicas.
func setUp(ctx context.Context, c *Config) (_ *soak, err error) {
	s := &soak{c: c, res: newResult(c), client: &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 2 * c.Concurrency}}}
	defer func() {
		if err != nil {
			s.tearDown()
		}
	}()
	dsn, err := mysqldrv.ParseDSN(c.DSN)
	if err != nil {
		return nil, fmt.Errorf("soak: DSN: %w", err)
	}
	if s.mysql, err = faultproxy.NewMySQL(dsn.Addr); err != nil {
		return nil, err
	}
	if s.s3, err = faultproxy.NewHTTP(c.S3.Endpoint); err != nil {
		return nil, err
	}
	s.plan = newFaultPlan(c)
	keys := filepath.Join(c.Dir, "keys")
	if out, err := proc.CLI(c.Binary, c.Dir, c.Env, "", "keygen", "--out", keys); err != nil {
		return nil, fmt.Errorf("keygen: %v\n%s", err, out)
	}
	common := append(append([]string{}, c.Env...),
		"DISB_AUTH_BCRYPT_COST=10", "DISB_LOG_FORMAT=json", "DISB_THROTTLE_BACKEND=database",
		"DISB_AUTH_PRIVATE_KEY_FILE="+filepath.Join(keys, "private.pem"),
		"DISB_HTTP_REPORT_TIMEOUT="+c.ReportTimeout.String(), "DISB_UPLOADS_SWEEP_INTERVAL=1s",
		"DISB_STORE_LOCK_WAIT_TIMEOUT="+lockWait(c.ReportTimeout).String(),
		"DISB_STORE_DRIVER=mysql", "DISB_UPLOADS_BACKEND=s3", "DISB_UPLOADS_S3_BUCKET="+c.S3.Bucket,
		"DISB_UPLOADS_S3_PREFIX="+c.S3.Prefix, "DISB_UPLOADS_S3_REGION="+c.S3.Region, "DISB_UPLOADS_S3_PATH_STYLE=true",
		"DISB_UPLOADS_S3_ACCESS_KEY_ID="+c.S3.AccessKeyID, "DISB_UPLOADS_S3_SECRET_ACCESS_KEY="+c.S3.SecretAccessKey)
	s.direct = append(append([]string{}, common...), "DISB_STORE_DSN="+c.DSN, "DISB_UPLOADS_S3_ENDPOINT="+c.S3.Endpoint)
	dsn.Addr = s.mysql.Addr()
	s.served = append(append([]string{}, common...), "DISB_STORE_DSN="+dsn.FormatDSN(), "DISB_UPLOADS_S3_ENDPOINT="+s.s3.URL())
	if out, err := proc.CLI(c.Binary, c.Dir, s.direct, "", "migrate"); err != nil {
		return nil, fmt.Errorf("migrate: %v\n%s", err, out)
	}
	if out, err := proc.CLI(c.Binary, c.Dir, s.direct, Password+"\n", "users", "add", "--user", User, "--nit", NIT); err != nil {
		return nil, fmt.Errorf("users add: %v\n%s", err, out)
	}
	s.fleet = &fleet{c: c, env: func(int) []string { return s.served }}
	if c.Galera != nil {
		// Replica i writes straight to node i: the faults are the nodes'
		// deaths (and the bucket's), so the 503s during a kill are its own.
		s.fleet.env = func(i int) []string {
			return append(append([]string{}, common...), "DISB_STORE_DSN="+c.Galera.DSNs[i], "DISB_UPLOADS_S3_ENDPOINT="+s.s3.URL())
		}
	}
	for i := range c.Replicas {
		if err := s.fleet.start(i); err != nil {
			return nil, err
		}
	}
	if s.token, err = s.login(ctx, s.fleet.url(0)); err != nil {
		return nil, err
	}
	c.Progress("soak: %d replicas up on %s (MySQL proxy %s, S3 proxy %s)", c.Replicas, dsn.DBName, s.mysql.Addr(), s.s3.URL())
	return s, nil
}

// tearDown stops the replicas, then the proxies.
func (s *soak) tearDown() {
	if s.fleet != nil {
		s.fleet.stopAll()
	}
	if s.mysql != nil {
		s.mysql.Close()
	}
	if s.s3 != nil {
		s.s3.Close()
	}
}

// fleet is the replicas, each in a directory of its own, sharing the
// database, the bucket and the key.
type fleet struct {
	c     *Config
	env   func(i int) []string // replica i's environment
	mu    sync.Mutex
	procs []*proc.Process
	logs  []*logScan // every process's, restarted ones included
}

// start starts replica i (again, after a kill) and waits until it is ready.
func (f *fleet) start(i int) error {
	dir := filepath.Join(f.c.Dir, fmt.Sprintf("replica-%d", i))
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	f.mu.Lock()
	name := fmt.Sprintf("replica-%d", i)
	if i < len(f.procs) {
		name += fmt.Sprintf("-restart-%d", len(f.logs))
	}
	logs := newLogScan(f.c.Logs(name))
	f.logs = append(f.logs, logs)
	f.mu.Unlock()
	p, err := proc.Start(f.c.Binary, dir, f.env(i), logs)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := p.WaitReady(30 * time.Second); err != nil {
		p.Kill()
		return fmt.Errorf("%s: %w", name, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.procs) <= i {
		f.procs = append(f.procs, nil)
	}
	f.procs[i] = p
	return nil
}

// kill SIGKILLs replica i. Its address stays in the rotation, as it would
// behind a balancer that has not noticed yet: clients get no answer there
// and retry on another.
func (f *fleet) kill(i int) {
	f.mu.Lock()
	p := f.procs[i]
	f.mu.Unlock()
	p.Kill()
}

// url is the address of replica i modulo their number.
func (f *fleet) url(i int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.procs[i%len(f.procs)].URL
}

func (f *fleet) stopAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.procs {
		if p != nil {
			p.Kill()
		}
	}
}

// lockWait is store.lock_wait_timeout for a report timeout: half of it in
// whole seconds, at least 1 s (the soak's timeouts are short).
func lockWait(reportTimeout time.Duration) time.Duration {
	return max(time.Second, (reportTimeout / 2).Truncate(time.Second))
}
