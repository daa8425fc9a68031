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
	dir, err := os.MkdirTemp("", "disb-soak-")
	if err != nil {
		return err
	}
	bin := o.bin
	if bin == "" {
		bin = filepath.Join(dir, "disbursementd")
		if err := proc.Build(o.root, bin); err != nil {
			return err
		}
	}
	dbName := fmt.Sprintf("disb_soak_%d", run)
	dsn, err := createDatabase(o.dsn, dbName)
	if err != nil {
		return err
	}
	if galera != nil {
		if err := galera.ForDatabase(dbName); err != nil {
			return err
		}
	}
	logDir := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	var files []*os.File
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	began, load := time.Now(), loadAverage()
	res, err := soak.Run(ctx, soak.Config{
		Binary: bin, Dir: dir, DSN: dsn, S3: s3cfg, Env: os.Environ(),
		Duration: o.soak, Concurrency: o.soakConc, Replicas: max(2, o.replicas), Galera: galera,
		Logs: func(name string) io.Writer {
			f, err := os.Create(filepath.Join(logDir, name+".log"))
			if err != nil {
				log.Printf("soak: %s's log: %v", name, err)
				return io.Discard
			}
			files = append(files, f)
			return f
		},
		Progress: log.Printf,
	})
	for _, f := range files {
		_ = f.Close()
	}
	if res == nil {
		return err
	}
	var text strings.Builder
	res.Print(&text)
	fmt.Print(text.String())
	if werr := writeSoakResults(o, "Soak (issue 17)", began, load, text.String()); werr != nil {
		return errors.Join(err, werr)
	}
	if err != nil || res.ViolationCount > 0 {
		log.Printf("soak: kept for a look: the replicas' logs in %s, database %s, objects under s3://%s/%s",
			logDir, dbName, s3cfg.Bucket, s3cfg.Prefix)
		if err == nil {
			err = fmt.Errorf("soak: %d disagreements between the answers, the rows and the files", res.ViolationCount)
		}
		return err
	}
	if err := storetest.DeletePrefix(context.Background(), storetest.S3Client(s3cfg), s3cfg); err != nil {
		log.Printf("soak: clean up s3://%s/%s: %v", s3cfg.Bucket, s3cfg.Prefix, err)
	}
	dropDatabase(o.dsn, dbName)
	return os.RemoveAll(dir)
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
		fmt.Sprintf("load average when the run began: %.2f (%s); the counts compare answers with rows and files, so they hold on a busy machine too", load, shared(load)),
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
