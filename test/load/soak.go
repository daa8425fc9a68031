package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/test/proc"
	"github.com/lender/disbursementd/test/soak"
	"github.com/lender/disbursementd/test/storetest"
)

// runSoak runs issue 17's soak in its long form (test/soak; the suite's
// TestSoakShort is the same for 60 s): -soak D of load at -soak-c on
// -replicas (at least 2) on a fresh database of -dsn's server and the test
// S3 server (test/s3.sh's variables), through the fault proxies. It prints
// the counts and writes them, with the commit, the command, the machine
// and the date, to the results file. The counts are correctness figures
// (answers against rows and files), valid on a busy machine too.
func runSoak(o options) error {
	var galera *soak.Galera
	if o.galera {
		var err error
		if galera, o.dsn, err = galeraSoak(o); err != nil {
			return err
		}
	}
	if o.dsn == "" {
		return errors.New("-soak needs a MariaDB server: -dsn or DISB_TEST_MYSQL_DSN")
	}
	run := time.Now().Unix()
	s3cfg, ok := storetest.S3FromEnv(fmt.Sprintf("soak-%d/", run))
	if !ok {
		return fmt.Errorf("-soak needs an S3 server: %s and the rest (source test/s3.sh && start_s3)", storetest.EnvS3Endpoint)
	}
	pl, err := newSoakPlace(o, "soak", run)
	if err != nil {
		return err
	}
	dir, dbName, logs := pl.dir, pl.dbName, pl.logs
	if galera != nil {
		if err := galera.ForDatabase(dbName); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	began, load := time.Now(), loadAverage()
	res, err := soak.Run(ctx, soak.Config{
		Binary: pl.bin, Dir: dir, DSN: pl.dsn, S3: s3cfg, Env: os.Environ(),
		Duration: o.soak, Concurrency: o.soakConc, Replicas: max(2, o.replicas), Galera: galera,
		Logs: logs.writer, Progress: log.Printf,
	})
	logs.close()
	if res == nil {
		return err
	}
	var text strings.Builder
	res.Print(&text)
	kept := fmt.Sprintf("the replicas' logs in %s, database %s, objects under s3://%s/%s", logs.dir, dbName, s3cfg.Bucket, s3cfg.Prefix)
	return soakOutcome(o, "Soak (issue 17)", began, load, text.String(), res.ViolationCount, err, kept, func() error {
		if err := storetest.DeletePrefix(context.Background(), storetest.S3Client(s3cfg), s3cfg); err != nil {
			log.Printf("soak: clean up s3://%s/%s: %v", s3cfg.Bucket, s3cfg.Prefix, err)
		}
		dropDatabase(o.dsn, dbName)
		return os.RemoveAll(dir)
	})
}

// soakPlace is where a soak runs: a working directory, the binary there
// (unless -bin names one), a fresh database disb_NAME_RUN on -dsn's
// server (its DSN), and the processes' log files in dir/logs.
type soakPlace struct {
	dir, bin, dbName, dsn string
	logs                  *soakLogs
}

func newSoakPlace(o options, name string, run int64) (p soakPlace, err error) {
	if p.dir, err = os.MkdirTemp("", "disb-"+name+"-"); err != nil {
		return p, err
	}
	if p.bin = o.bin; p.bin == "" {
		p.bin = filepath.Join(p.dir, "disbursementd")
		if err := proc.Build(o.root, p.bin); err != nil {
			return p, err
		}
	}
	p.dbName = fmt.Sprintf("disb_%s_%d", name, run)
	if p.dsn, err = createDatabase(o.dsn, p.dbName); err != nil {
		return p, err
	}
	p.logs = &soakLogs{dir: filepath.Join(p.dir, "logs")}
	return p, os.MkdirAll(p.logs.dir, 0o755)
}

// soakLogs writes each process of a soak's log to a file of its own in
// dir (NAME.log).
type soakLogs struct {
	dir   string
	mu    sync.Mutex
	files []*os.File
}

// writer is the soak's Logs: process name's log file.
func (l *soakLogs) writer(name string) io.Writer {
	f, err := os.Create(filepath.Join(l.dir, name+".log"))
	if err != nil {
		log.Printf("soak: %s's log: %v", name, err)
		return io.Discard
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.files = append(l.files, f)
	return f
}

func (l *soakLogs) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range l.files {
		_ = f.Close()
	}
}

// soakOutcome prints a soak's counts and writes them to the results file
// under title. When the soak could not finish (err) or found violations,
// it says what was kept for a look and returns an error; else it runs
// clean (drop what the soak made).
func soakOutcome(o options, title string, began time.Time, load float64, counts string, violations int, err error, kept string, clean func() error) error {
	fmt.Print(counts)
	if werr := writeSoakResults(o, title, began, load, counts); werr != nil {
		return errors.Join(err, werr)
	}
	if err != nil || violations > 0 {
		log.Printf("%s: kept for a look: %s", title, kept)
		if err == nil {
			err = fmt.Errorf("%s: %d violations (listed above)", title, violations)
		}
		return err
	}
	return clean()
}

// writeSoakResults writes the counts to the results file, under how they
// were taken.
func writeSoakResults(o options, title string, began time.Time, load float64, counts string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s\n\n", title, began.UTC().Format(time.RFC3339))
	for _, a := range []string{
		"service " + measured(o),
		"command: `go run -C test/load . " + strings.Join(masked(os.Args[1:]), " ") + "`",
		"machine: " + machine(),
		fmt.Sprintf("load average when the run began: %.2f (%s); the counts are correctness counts (answers against what was stored, decided and delivered), so they hold on a busy machine too; timings do not", load, shared(load)),
	} {
		fmt.Fprintf(&b, "- %s\n", a)
	}
	b.WriteString("\n```\n" + counts + "```\n")
	if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(o.out, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Printf("\nresults written to %s\n", o.out)
	return nil
}

// shared says whether other work held the cores when the run began.
func shared(load float64) string {
	if busy(load) {
		return "busy: other work shared the cores"
	}
	return "quiet"
}

// dropDatabase drops a database createDatabase made.
func dropDatabase(serverDSN, name string) {
	cfg, err := mysqldrv.ParseDSN(serverDSN)
	if err != nil {
		return
	}
	if db, err := sql.Open("mysql", cfg.FormatDSN()); err == nil {
		_, _ = db.Exec("DROP DATABASE IF EXISTS " + name)
		_ = db.Close()
	}
}
