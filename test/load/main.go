// Command load measures the service against the ceilings of the machine it
// runs on. It is its own module (its load generator stays out of the
// service's go.mod); from the checkout's root:
//
//	go run -C test/load .                          # SQLite (embedded default)
//	go run -C test/load . -store mysql -dsn 'root@tcp(127.0.0.1:3306)/'
//	go run -C test/load . -runs 3 -profile /tmp/prof   # for the record
//	go run -C test/load . -mode slow-body              # reports beside slow bodies
//	go run -C test/load . -store mysql -mode login-flood   # beside a login flood
//	go run -C test/load . -store mysql -mode list-flood    # beside full-range lists on 10^6 rows
//	go run -C test/load . -mode tiff-flood                 # beside issue 32's costly TIFFs
//	go run -C test/load . -mode byte-hold              # beside bodies declaring 32 MiB, sending 60 KiB
//	go run -C test/load . -mode lookup-hold            # beside five partners paging back to back
//	go run -C test/load . -mode nfc-growth -env GOMEMLIMIT=768MiB -mem-max 1GiB
//	go run -C test/load . -soak 10m                    # issue 17's soak (MariaDB and S3)
//	go run -C test/load . -soak 10m -galera            # the soak on test/galera.sh's cluster, nodes killed
//	go run -C test/load . -mode node-kill [-galera-list]   # 3 replicas on test/galera.sh's 3 nodes, node 3 SIGKILLed
//	go run -C test/load . -soak11 10m                  # contract §11's soak: decisions and signed webhooks (MariaDB)
//	go run -C test/load . -mode webhook-hang -runs 3   # reports beside 5 webhook endpoints that never answer
//
// It builds and starts disbursementd in a temp directory, adds a user,
// takes a token, and drives W1 (full report, no file), W2 (with a 200 KB
// PDF) and W3 (with a 20 MiB PDF) at each concurrency, through vegeta;
// -w V1,V2 adds the reports of W1 and W2 sent to POST /v1/reports (money
// as strings, Authorization: Bearer), so that one run compares /v1 with
// the legacy POST (e.g. -w W1,V1,W2,V2 -runs 3). In
// the same run it measures (a) the HTTP ceiling, the same bodies sent to a
// minimal net/http handler that reads and discards them, and (b) the
// storage ceiling, the same rows inserted with database/sql prepared
// statements and the same files written and fsynced, with no HTTP or JSON.
//
// For each level it prints throughput, p50/p90/p99, errors, the service's
// CPU time per report (utime+stime from /proc/PID/stat around the run, ÷
// successful reports), the database server's when -db-pid names it, the
// server's peak RSS, and the service's throughput as a fraction of
// min(a, b). W1 and W2 (and V1, V2) at c=32 are run again at half that
// throughput for their latency; W3 starts with a memory check (peak RSS
// growth ÷ body over sequential requests); -prefill compares W1 on a
// filled table.
//
// -runs N measures every level N times and reports medians, with the
// spread of throughput. -profile DIR serves pprof from the service and,
// in one extra run of the chosen levels, saves a CPU and an allocation
// profile to DIR and their top functions to the results. -env passes
// settings to the service. The results file records the commit, the
// command, the machine and its load average when the run began.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

type options struct {
	root                string // the service's checkout
	store, dsn, out     string
	concurrency         []int
	w3Concurrency       []int
	duration            time.Duration
	w3Requests, prefill int
	workloads           string
	runs                int
	env                 settings
	dbPID               int
	profileDir          string
	profileWorkloads    string
	profileConc         int
	profileTime         time.Duration
	profileTrace        bool
	bin                 string // a prebuilt service binary instead of building the checkout
	replicas            int    // service processes on one store, requests spread over them
	mode                string // levels, or an attack mode (edge.go)
	edgeConc            int    // the measured reports' concurrency in an attack mode
	attackConc          int    // login-flood clients
	slowN               int    // slow bodies kept arriving
	slowEvery           time.Duration
	listConc, listRows  int           // list-flood clients, and the rows of their partner
	listTimeout         time.Duration // a list-flood client's timeout
	tiffConc            int           // tiff-flood clients
	tiffTimeout         time.Duration // a tiff-flood client's timeout
	soak                time.Duration // > 0: issue 17's soak for this long (soak.go) instead of measuring
	soakConc            int
	soak11              time.Duration // > 0: contract §11's soak for this long (soak11.go)
	soak11Quiet         bool          // with -soak11: no 500s, no absence, no SIGKILL (the latency at rest)
	soak11Rate          float64       // with -soak11: new reports a second in all (0: closed loop)
	soak11Kill          time.Duration // with -soak11: a replica SIGKILLed every this (0: 2m)
	soak11Away          time.Duration // with -soak11: how long the receiver is away (0: 30s)
	galera              bool          // with -soak: on test/galera.sh's cluster, a node killed every galeraEvery
	galeraEvery         time.Duration
	galeraList          bool   // with -mode node-kill: each replica's store.dsn lists every node, its own first
	killReports         int    // with -mode node-kill: reports in all
	killConc            int    // with -mode node-kill: reports in flight at most
	edgeW               string // the measured reports' workload in an attack mode
	edgeLookups         int    // the measured partner's look-up clients beside its reports
	holdNames, holdN    int    // byte-hold: user names of the holding partner, connections
	holdDeclare         int64  // byte-hold: the Content-Length each declares
	holdSend            int    // byte-hold: bytes each sends at once
	holdEvery           time.Duration
	pagePartners        int // lookup-hold: paging partners
	pageConc, pageRows  int // lookup-hold: clients and rows of each
	pageLimit           int
	nfcN                int     // nfc-growth: clients
	nfcMiB              float64 // nfc-growth: body size
	memMax              string  // the service's memory cgroup limit (e.g. 1GiB); empty: none

	// replicaDSN, when set, is replica i's store.dsn, given the database's
	// DSN on -dsn's server (the node-kill mode's replica on its own node).
	replicaDSN func(i int, dbDSN string) string
}

// settings collects repeated -env KEY=VALUE flags.
type settings []string

func (s *settings) String() string { return strings.Join(*s, " ") }

func (s *settings) Set(v string) error {
	if k, _, ok := strings.Cut(v, "="); !ok || k == "" || strings.ContainsAny(k, " \t") {
		return fmt.Errorf("%q: want KEY=VALUE", v)
	}
	*s = append(*s, v)
	return nil
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "sink" {
		runSink(os.Args[2])
		return
	}
	var o options
	var conc, w3conc string
	flag.StringVar(&o.store, "store", "sqlite", "sqlite or mysql")
	flag.StringVar(&o.dsn, "dsn", os.Getenv("DISB_TEST_MYSQL_DSN"), "MySQL server DSN (a fresh database is created on it)")
	flag.StringVar(&o.out, "out", "", "results file (default test/load/results/latest-STORE.md in the checkout; a relative path is taken from the directory the command was typed in)")
	flag.StringVar(&conc, "c", "1,8,32,128", "concurrencies for W1 and W2")
	flag.StringVar(&w3conc, "c3", "1,8", "concurrencies for W3 (20 MiB bodies)")
	flag.DurationVar(&o.duration, "d", 5*time.Second, "duration of each W1/W2 run")
	flag.IntVar(&o.w3Requests, "n3", 50, "sequential W3 requests for the memory check")
	flag.IntVar(&o.prefill, "prefill", 0, "also measure W1 at c=32 with this many rows already in the table (e.g. 1000000)")
	flag.StringVar(&o.workloads, "w", "W1,W2,W3", "workloads to run: W1, W2, W3, and V1 and V2 (W1's and W2's reports through POST /v1/reports)")
	flag.IntVar(&o.runs, "runs", 1, "runs of every level; the table shows medians (3 or more for the record)")
	flag.Var(&o.env, "env", "KEY=VALUE setting for the service, repeatable (e.g. -env DISB_STORE_MAX_BATCH=1)")
	flag.IntVar(&o.dbPID, "db-pid", 0, "PID of the MySQL/MariaDB server, for its CPU per report (default $MARIADB_PID from test/mariadb.sh, with -store mysql)")
	flag.StringVar(&o.profileDir, "profile", "", "directory for CPU and allocation profiles of the service under load (off when empty)")
	flag.StringVar(&o.profileWorkloads, "profile-w", "W1,W2", "workloads to profile, with -profile")
	flag.IntVar(&o.profileConc, "profile-c", 32, "concurrency to profile at (or the highest of -c below it), with -profile")
	flag.DurationVar(&o.profileTime, "profile-time", 10*time.Second, "length of each profile, whole seconds, with -profile")
	flag.BoolVar(&o.profileTrace, "profile-trace", false, "with -profile: an execution trace over the same seconds too, and where the goroutines waited (go tool trace -pprof=sync, syscall, sched); the trace slows the service, so the run's CPU figures say less")
	flag.StringVar(&o.bin, "bin", "", "measure this service binary instead of building the checkout (e.g. an older build, to compare on the same machine)")
	flag.IntVar(&o.replicas, "replicas", 1, "service processes on the one store (MySQL only), requests spread over them round robin")
	flag.StringVar(&o.mode, "mode", modeLevels, "levels (the workloads above), or an attack mode: slow-body, login-flood, list-flood, tiff-flood, byte-hold, lookup-hold, nfc-growth (reports and look-ups alone, then beside that attack; see edge.go) or webhook-hang (reports alone, then beside 5 webhook endpoints that never answer; webhookhang.go, with -runs), or node-kill (3 replicas on test/galera.sh's 3 nodes, node 3 SIGKILLed under reports and restarted; nodekill.go)")
	flag.IntVar(&o.edgeConc, "edge-c", 32, "concurrency of the measured reports, with -mode slow-body or login-flood")
	flag.IntVar(&o.attackConc, "attack-c", 400, "login-flood clients, with -mode login-flood")
	flag.IntVar(&o.slowN, "slow-n", 256, "slow bodies kept arriving, with -mode slow-body")
	flag.DurationVar(&o.slowEvery, "slow-every", 5*time.Second, "a slow body's pace: one byte per this, with -mode slow-body")
	flag.IntVar(&o.listConc, "list-c", 32, "clients of full-range lists, with -mode list-flood")
	flag.IntVar(&o.listRows, "list-rows", 1_000_000, "reports of the listing partner, with -mode list-flood")
	flag.DurationVar(&o.listTimeout, "list-timeout", 8*time.Second, "a listing client's timeout, with -mode list-flood")
	flag.IntVar(&o.tiffConc, "tiff-c", 4, "clients sending finding 4's TIFF, with -mode tiff-flood")
	flag.DurationVar(&o.tiffTimeout, "tiff-timeout", 10*time.Second, "a TIFF client's timeout, with -mode tiff-flood")
	flag.DurationVar(&o.soak, "soak", 0, "run issue 17's soak for this long instead (MariaDB from -dsn, S3 from test/s3.sh's variables; e.g. -soak 10m)")
	flag.IntVar(&o.soakConc, "soak-c", 32, "concurrent reports, with -soak (-soak11: 16 unless given)")
	flag.DurationVar(&o.soak11, "soak11", 0, "run contract §11's soak for this long instead (decisions and signed webhooks on 3 replicas of MariaDB from -dsn; e.g. -soak11 10m; needs test/sworacle installed)")
	flag.Float64Var(&o.soak11Rate, "soak11-rate", 0, "with -soak11: pace the partner's clients to this many new reports a second in all (0: each as soon as the last is answered and decided)")
	flag.DurationVar(&o.soak11Kill, "soak11-kill-every", 0, "with -soak11: SIGKILL a replica every this (default 2m; the suite's 60 s soak uses 20s)")
	flag.DurationVar(&o.soak11Away, "soak11-away", 0, "with -soak11: how long the receiver goes away once (default 30s; the suite's 60 s soak uses 10s)")
	flag.BoolVar(&o.soak11Quiet, "soak11-quiet", false, "with -soak11: a receiver that always answers 204 and stays, and no SIGKILL: the decision-to-delivery latency without faults (e.g. -soak11 2m -soak-c 1 -soak11-quiet)")
	flag.BoolVar(&o.galera, "galera", false, "with -soak: 3 replicas on the 3 nodes of test/galera.sh's cluster ($DISB_TEST_GALERA_DSNS, $GALERA_DIR), one node SIGKILLed and restarted in turn")
	flag.DurationVar(&o.galeraEvery, "galera-every", 2*time.Minute, "with -soak -galera: time between node kills")
	flag.BoolVar(&o.galeraList, "galera-list", false, "with -mode node-kill: give each replica the list of all nodes in store.dsn (its own node first), instead of its own node alone")
	flag.IntVar(&o.killReports, "kill-n", 300, "with -mode node-kill: reports in all, spread evenly over the replicas and over 12 s")
	flag.IntVar(&o.killConc, "kill-c", 16, "with -mode node-kill: reports in flight at most")
	flag.StringVar(&o.edgeW, "edge-w", "W1", "the measured reports' workload in an attack mode: W1, W2, V1 or V2")
	flag.IntVar(&o.edgeLookups, "edge-lookups", 4, "look-up clients of the measured partner beside its reports in an attack mode (0: none)")
	flag.IntVar(&o.holdNames, "hold-names", 2, "user names of the holding partner (one NIT), with -mode byte-hold")
	flag.IntVar(&o.holdN, "hold-n", 6, "held connections, with -mode byte-hold")
	flag.Int64Var(&o.holdDeclare, "hold-declare", 32<<20, "Content-Length each held body declares, with -mode byte-hold")
	flag.IntVar(&o.holdSend, "hold-send", 60<<10, "bytes each held body sends at once, with -mode byte-hold")
	flag.DurationVar(&o.holdEvery, "hold-every", 0, "then a byte every this (0: nothing more), with -mode byte-hold")
	flag.IntVar(&o.pagePartners, "page-partners", 5, "partners paging back to back, with -mode lookup-hold")
	flag.IntVar(&o.pageConc, "page-c", 4, "clients of each paging partner, with -mode lookup-hold")
	flag.IntVar(&o.pageRows, "page-rows", 20_000, "reports of each paging partner, with -mode lookup-hold")
	flag.IntVar(&o.pageLimit, "page-limit", 500, "the paging partners' page size, with -mode lookup-hold")
	flag.IntVar(&o.nfcN, "nfc-n", 6, "clients validating bodies that grow under NFC, with -mode nfc-growth")
	flag.Float64Var(&o.nfcMiB, "nfc-mib", 31.9, "size of each such body in MiB, with -mode nfc-growth")
	flag.StringVar(&o.memMax, "mem-max", "", "run the service in a memory cgroup of this limit (e.g. 1GiB, the shipped container's); with -env GOMEMLIMIT=768MiB")
	flag.Parse()
	if o.soak > 0 || o.soak11 > 0 || o.mode == modeNodeKill {
		o.store = "mysql"
	}
	o.env = append(modeSettings(o.mode), o.env...)
	o.concurrency, o.w3Concurrency = ints(conc), ints(w3conc)
	if err := o.complete(); err != nil {
		log.Fatal(err)
	}
	measure := run
	switch {
	case o.soak > 0:
		measure = runSoak
	case o.soak11 > 0:
		measure = runSoak11
	case o.mode == modeWebhookHang:
		measure = runWebhookHang
	case o.mode == modeNodeKill:
		measure = runNodeKill
	case o.mode != modeLevels:
		measure = runEdge
	}
	if err := measure(o); err != nil {
		log.Fatal(err)
	}
}

// complete fills the defaults that depend on the checkout or the
// environment, and checks what would otherwise fail late in a long run.
func (o *options) complete() error {
	if o.runs < 1 {
		return fmt.Errorf("-runs %d: at least 1", o.runs)
	}
	root, err := repoRoot()
	if err != nil {
		return err
	}
	o.root = root
	if o.out == "" {
		name := "latest-" + o.store + ".md"
		switch {
		case o.soak > 0:
			name = "soak-" + o.store + ".md"
		case o.soak11 > 0:
			name = "soak11-" + o.store + ".md"
		case o.mode != modeLevels:
			name = o.mode + "-" + o.store + ".md"
		}
		o.out = filepath.Join(root, "test", "load", "results", name)
	}
	o.out = callerPath(o.out)
	if o.profileTrace && o.profileDir == "" {
		return errors.New("-profile-trace needs -profile (the directory its files go to)")
	}
	if o.profileDir != "" {
		o.profileDir = callerPath(o.profileDir)
		if err := os.MkdirAll(o.profileDir, 0o755); err != nil {
			return err
		}
	}
	from := "-db-pid"
	if o.dbPID == 0 && o.store == "mysql" && os.Getenv("MARIADB_PID") != "" {
		from = "MARIADB_PID"
		if o.dbPID, err = strconv.Atoi(os.Getenv("MARIADB_PID")); err != nil {
			return fmt.Errorf("MARIADB_PID=%q: %w", os.Getenv("MARIADB_PID"), err)
		}
	}
	if o.dbPID != 0 {
		if o.store != "mysql" {
			log.Printf("-db-pid ignored: SQLite runs inside the service, whose CPU is measured")
			o.dbPID = 0
		} else if _, err := cpuTime(o.dbPID, 100); err != nil {
			return fmt.Errorf("%s %d: cannot read the database server's CPU time: %w", from, o.dbPID, err)
		}
	}
	if l := loadAverage(); busy(l) {
		log.Printf("load average %.2f: the machine is busy; take figures for the record on a quiet one", l)
	}
	return nil
}

// callerPath resolves a relative path against the directory the command
// was typed in. `go run -C test/load .` runs the tool in test/load but
// leaves the shell's PWD as it was, and a user who typed -out x.md from the
// checkout's root means the root's x.md.
func callerPath(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	if pwd := os.Getenv("PWD"); filepath.IsAbs(pwd) {
		if fi, err := os.Stat(pwd); err == nil && fi.IsDir() {
			return filepath.Join(pwd, p)
		}
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}
