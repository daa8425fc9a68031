package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/adapters/httpapi"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/proc"
	"github.com/lender/disbursementd/test/storetest"
)

const (
	user     = "loadtest"
	password = "load test password 123"
)

// environment is the service under test, the sink, and their data.
type environment struct {
	o          options
	dir        string
	bin        string // the service binary, for go tool pprof
	svc, sink  *exec.Cmd
	svcs       []*exec.Cmd // every replica; svc is the first
	svcURL     string
	svcURLs    []string // every replica's; svcURL is the first
	sinkURL    string
	pprofURL   string // empty unless -profile
	cpu        *cpuMeter
	token      string
	driver     string
	svcDSN     string
	svcEnv     []string // the service's environment, for more users add
	serverDSN  string
	ceilingDSN string
	run        int64
	cg         *memCgroup // the service's memory cgroup, with -mem-max
}

// serviceModule is the module the tool measures; test/load's go.mod
// replaces it with the checkout two directories up.
const serviceModule = "github.com/lender/disbursementd"

// repoRoot is the service's checkout, where the binary is built: the
// directory the replace directive points at, wherever the tool is run from.
func repoRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", serviceModule).Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s (run from test/load's module, e.g. go run -C test/load .): %w", serviceModule, err)
	}
	return strings.TrimSpace(string(out)), nil
}

func freePort() string {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	return fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
}

func newEnvironment(o options) (_ *environment, err error) {
	root := o.root
	dir, err := os.MkdirTemp("", "disb-load-")
	if err != nil {
		return nil, err
	}
	e := &environment{o: o, dir: dir, driver: o.store, run: time.Now().Unix()}
	defer func() {
		if err != nil { // stop what started, drop what was created
			e.close()
		}
	}()
	bin := filepath.Join(dir, "disbursementd")
	if o.bin != "" {
		if bin, err = filepath.Abs(o.bin); err != nil {
			return nil, err
		}
	} else {
		if err := proc.Build(root, bin); err != nil {
			return nil, err
		}
	}
	e.bin = bin
	if o.replicas > 1 && o.store != "mysql" {
		return nil, fmt.Errorf("-replicas %d needs -store mysql: replicas share a database server", o.replicas)
	}
	env := append(os.Environ(), "DISB_AUTH_BCRYPT_COST=10", "DISB_LOG_FORMAT=json")
	switch o.store {
	case "sqlite":
		e.svcDSN = filepath.Join(dir, "data", "disbursement.db")
		e.ceilingDSN = filepath.Join(dir, "ceiling", "ceiling.db")
	case "mysql":
		if o.dsn == "" {
			return nil, fmt.Errorf("-store mysql needs -dsn or DISB_TEST_MYSQL_DSN")
		}
		e.serverDSN = o.dsn
		if e.svcDSN, err = createDatabase(o.dsn, fmt.Sprintf("disb_load_%d", e.run)); err != nil {
			return nil, err
		}
		if e.ceilingDSN, err = createDatabase(o.dsn, fmt.Sprintf("disb_ceiling_%d", e.run)); err != nil {
			return nil, err
		}
		env = append(env, "DISB_STORE_MAX_OPEN_CONNS=64", "DISB_STORE_MAX_IDLE_CONNS=64")
	default:
		return nil, fmt.Errorf("-store %q: sqlite or mysql", o.store)
	}
	env = append(env, "DISB_STORE_DRIVER="+o.store, "DISB_STORE_DSN="+e.svcDSN)
	if o.profileDir != "" {
		// Its own loopback port, off the partner-facing listener.
		e.pprofURL = "http://127.0.0.1:" + freePort()
		env = append(env, "DISB_DEBUG_PPROF_ADDR="+strings.TrimPrefix(e.pprofURL, "http://"))
	}
	// Last, so that -env overrides the tool's own settings (exec keeps the
	// last value of a key).
	env = append(env, o.env...)
	e.svcEnv = env
	if err := e.addUser(user, measuredNIT); err != nil {
		return nil, err
	}
	if o.replicas > 1 {
		// Replicas as a fleet runs them: one key, one upload directory (on
		// one machine a directory stands in for the bucket), the shared
		// login throttle; each in a working directory of its own.
		keygen := exec.Command(bin, "keygen", "--out", filepath.Join(dir, "keys"))
		if out, err := keygen.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("keygen: %v\n%s", err, out)
		}
		uploads := filepath.Join(dir, "uploads")
		if err := os.MkdirAll(uploads, 0o750); err != nil {
			return nil, err
		}
		env = append(env, "DISB_AUTH_PRIVATE_KEY_FILE="+filepath.Join(dir, "keys", "private.pem"),
			"DISB_UPLOADS_DIR="+uploads, "DISB_THROTTLE_BACKEND=database")
	}
	var pids []int
	for i := range max(o.replicas, 1) {
		wd := dir
		if o.replicas > 1 {
			wd = filepath.Join(dir, fmt.Sprintf("replica-%d", i))
			if err := os.MkdirAll(wd, 0o750); err != nil {
				return nil, err
			}
		}
		port := freePort()
		logf, _ := os.Create(filepath.Join(dir, fmt.Sprintf("service-%d.log", i)))
		serve, err := e.inCgroup(bin)
		if err != nil {
			return nil, err
		}
		svc := exec.Command(serve, "serve")
		own := []string{"DISB_HTTP_ADDR=127.0.0.1:" + port}
		if o.replicaDSN != nil {
			own = append(own, "DISB_STORE_DSN="+o.replicaDSN(i, e.svcDSN))
		}
		svc.Dir, svc.Env, svc.Stdout, svc.Stderr = wd, append(append([]string{}, env...), own...), logf, logf
		if err := svc.Start(); err != nil {
			return nil, err
		}
		e.svcs, e.svcURLs = append(e.svcs, svc), append(e.svcURLs, "http://127.0.0.1:"+port)
		pids = append(pids, svc.Process.Pid)
	}
	e.svc, e.svcURL = e.svcs[0], e.svcURLs[0]
	hz, source := clockTicks()
	e.cpu = &cpuMeter{hz: hz, source: source, services: pids, dbID: o.dbPID}
	sinkPort := freePort()
	e.sink = exec.Command(os.Args[0], "sink", "127.0.0.1:"+sinkPort)
	if err := e.sink.Start(); err != nil {
		return nil, err
	}
	e.sinkURL = "http://127.0.0.1:" + sinkPort
	up := []string{e.sinkURL}
	for _, u := range e.svcURLs {
		up = append(up, u+"/readyz")
	}
	if e.pprofURL != "" {
		up = append(up, e.pprofURL+"/debug/pprof/")
	}
	for _, u := range up {
		if err := waitUp(u); err != nil {
			return nil, err
		}
	}
	if e.token, err = e.getToken(); err != nil {
		return nil, err
	}
	return e, nil
}

// inCgroup is what runs the service: bin itself, or with -mem-max a
// script that puts it in a memory cgroup of that limit first (one for all
// replicas).
func (e *environment) inCgroup(bin string) (string, error) {
	if e.o.memMax == "" {
		return bin, nil
	}
	if e.cg == nil {
		limit, err := parseSize(e.o.memMax)
		if err != nil {
			return "", fmt.Errorf("-mem-max %w", err)
		}
		if e.cg, err = newMemCgroup(limit); err != nil {
			return "", fmt.Errorf("-mem-max %s: %w", e.o.memMax, err)
		}
	}
	return e.cg.wrap(e.dir, bin)
}

func createDatabase(serverDSN, name string) (string, error) {
	cfg, err := mysqldrv.ParseDSN(serverDSN)
	if err != nil {
		return "", err
	}
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
		return "", err
	}
	cfg.DBName = name
	return cfg.FormatDSN(), nil
}

func waitUp(u string) error {
	for i := 0; i < 200; i++ {
		if resp, err := http.Get(u); err == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not come up", u)
}

// The NITs of the tool's partners: the measured partner's, and one for
// each partner an attack mode adds. The service's bounds are a partner's
// (its NIT, all its user names together), so an attack of "another
// partner" must come from another NIT.
const (
	measuredNIT = "900123456-8"
	slowNIT     = "800100001"
	listNIT     = "800100002"
)

// attackNIT is the NIT of the attack modes' i-th partner of their own.
func attackNIT(i int) string { return fmt.Sprintf("8002%05d", i) }

// addUser adds a user of the partner nit with the tool's password, as an
// operator does.
func (e *environment) addUser(name, nit string) error {
	add := exec.Command(e.bin, "users", "add", "--user", name, "--nit", nit)
	add.Dir, add.Env, add.Stdin = e.dir, e.svcEnv, strings.NewReader(password+"\n")
	if out, err := add.CombinedOutput(); err != nil {
		return fmt.Errorf("users add %s: %v\n%s", name, err, out)
	}
	return nil
}

func (e *environment) getToken() (string, error) { return e.tokenFor(user) }

// tokenFor takes a token for a partner added with the tool's password.
func (e *environment) tokenFor(name string) (string, error) {
	body, _ := json.Marshal(map[string]string{"user": name, "password": password})
	req, _ := http.NewRequest("GET", e.svcURL+httpapi.PartnerPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var r struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.AccessToken == "" {
		return "", fmt.Errorf("token: HTTP %d", resp.StatusCode)
	}
	return r.AccessToken, nil
}

func (e *environment) close() {
	for _, c := range e.svcs {
		if c != nil && c.Process != nil {
			_ = c.Process.Signal(os.Interrupt)
			_ = c.Wait()
		}
	}
	if e.cg != nil {
		e.cg.remove()
	}
	// The sink holds nothing to finish, and a tool started from a shell's
	// background job inherits SIGINT ignored (the sink installs no
	// handler), so an interrupt left it, and this wait, running.
	if c := e.sink; c != nil && c.Process != nil {
		_ = c.Process.Kill()
		_ = c.Wait()
	}
	if e.serverDSN != "" {
		if cfg, err := mysqldrv.ParseDSN(e.serverDSN); err == nil {
			if db, err := sql.Open("mysql", cfg.FormatDSN()); err == nil {
				_, _ = db.Exec(fmt.Sprintf("DROP DATABASE IF EXISTS disb_load_%d", e.run))
				_, _ = db.Exec(fmt.Sprintf("DROP DATABASE IF EXISTS disb_ceiling_%d", e.run))
				db.Close()
			}
		}
	}
	_ = os.RemoveAll(e.dir)
}

// runSink is the HTTP ceiling: a minimal handler that reads and discards.
func runSink(addr string) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"200"}`))
	})
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	_ = srv.ListenAndServe()
}

// staged is a mapped full report, for the storage ceiling and the prefill.
func staged(file []byte) (domain.StagedReport, *domain.File, error) {
	now := time.Now().UTC()
	rep, err := domain.DefaultCatalogue().MapReport(fixture.Members(fixture.FullBody(now, "SENTINEL-CREDIT", file)), fixture.FileRules(), now)
	if err != nil {
		return domain.StagedReport{}, nil, err
	}
	return domain.StagedReport{Report: rep, ReceivedAt: now, PartnerUser: user, PartnerNIT: measuredNIT,
		RequestID: "load", PayloadSHA256: strings.Repeat("a", 64)}, rep.File, nil
}

// openCeilingStore opens a migrated store of the same driver as the
// service's, apart from it.
func (e *environment) openCeilingStore() (*sql.DB, error) {
	st, err := gormstore.Open(e.driver, e.ceilingDSN, storetest.Options(e.driver), domain.DefaultCatalogue())
	if err != nil {
		return nil, err
	}
	_, err = st.Migrate(context.Background())
	if err = errors.Join(err, st.Close()); err != nil {
		return nil, err
	}
	db, err := storetest.OpenSQL(e.driver, e.ceilingDSN)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(64)
	db.SetMaxIdleConns(64)
	return db, nil
}
