package soak

import (
	"context"
	"database/sql"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/lender/disbursementd/adapters/s3upload"
	"github.com/lender/disbursementd/test/storetest"
)

// row is one staging row, as the comparison needs it.
type row struct {
	id                     int64
	credit, file, key, sum string
	user                   string
	n                      int // the report of the mix it holds (from its Monto Solicitado)
}

// probePrefix starts the S3 store's own probe objects (never a report's).
const probePrefix = ".disbursementd-probe-"

// verify compares every 200 with the rows and the files: each report of
// the mix acknowledged has exactly one row, with the id and the file its
// every 200 named, and that file is there; no key and no report has two
// rows; no row lacks its file; no file lacks its row.
func (s *soak) verify(ctx context.Context) error {
	rows, err := s.rows(ctx)
	if err != nil {
		return err
	}
	if s.c.Galera != nil {
		if err := s.compareNodes(ctx, rows); err != nil {
			return err
		}
	}
	objects, quarantined, err := s.objects(ctx)
	if err != nil {
		return err
	}
	r := s.res
	reports := s.reports.all()
	byReport := map[int][]row{}
	keys, sums := map[string]int{}, map[string]int{}
	named := map[string]bool{}
	r.Rows = len(rows)
	for _, w := range rows {
		if w.n < 0 || w.n >= len(reports) {
			r.violation("row %d (%s) holds no report of the mix", w.id, w.credit)
			continue
		}
		byReport[w.n] = append(byReport[w.n], w)
		if w.key != "" {
			keys[w.user+"\x00"+w.key]++
		}
		sums[w.sum]++
		if w.file != "" {
			r.RowsWithFile++
			named[w.file] = true
			if !objects[w.file] {
				r.MissingFiles++
				r.violation("row %d (%s) names %s: the file is not there", w.id, w.credit, w.file)
			}
		}
	}
	for _, n := range keys {
		if n > 1 {
			r.DuplicateKeys++
		}
	}
	for _, n := range sums {
		if n > 1 {
			r.DuplicateReports++
		}
	}
	for _, rep := range reports {
		s.compare(rep, byReport[rep.n])
	}
	for name := range objects {
		if !named[name] {
			r.Orphans++
			r.violation("%s is in the bucket and no row names it", name)
		}
	}
	r.Files, r.Quarantined = len(objects), len(quarantined)
	for name := range quarantined {
		if named[name] {
			r.violation("%s is in quarantine and row names it (reconcile --restore-quarantined would bring it back)", name)
		}
	}
	swept, missing := s.fleet.sweptAndMissing()
	r.Swept = swept
	if len(missing) > 0 {
		r.violation("the replicas logged %d lines saying a stored report's file is missing (below, the first)", len(missing))
		for _, line := range missing[:min(len(missing), 5)] {
			r.violation("a replica logged: %.400s", line)
		}
	}
	r.Commits, r.CommitsHeld, r.CommitsHeldPastTimeout = s.mysql.Held(), s.plan.commits.Load(), s.plan.commitsPast.Load()
	r.MaxCommitHeld = time.Duration(s.plan.maxHeld.Load())
	r.ObjectPUTs = s.s3.Objects("PUT")
	s.plan.mu.Lock()
	r.PUTFaults = maps.Clone(s.plan.puts)
	s.plan.mu.Unlock()
	return nil
}

// compare holds one report's 200s against its rows.
func (s *soak) compare(rep *report, rows []row) {
	r := s.res
	r.Reports++
	r.Modes[rep.mode.String()]++
	if rep.withFile {
		r.WithFile++
	}
	if rep.key == "" {
		r.Keyless++
	}
	if rep.shared {
		r.Shared++
	}
	oks := rep.answers()
	if len(rows) > 1 {
		r.violation("report %d (%s, key %q): %d rows", rep.n, rep.credit, rep.key, len(rows))
	}
	if len(oks) == 0 {
		r.Unacknowledged++
		return
	}
	if len(rows) == 0 {
		r.violation("report %d (%s, key %q) was answered 200 (id %d, file %q) and has no row", rep.n, rep.credit, rep.key, oks[0].id, oks[0].file)
		return
	}
	w := rows[0]
	for _, a := range oks {
		if a.id != w.id || a.file != w.file {
			r.violation("report %d (%s): a 200 named id %d, file %q; its row is %d, file %q", rep.n, rep.credit, a.id, a.file, w.id, w.file)
		}
	}
	switch {
	case w.credit != rep.credit || w.key != rep.key || w.user != User:
		r.violation("report %d: its row %d holds credit %s, key %q, user %s", rep.n, w.id, w.credit, w.key, w.user)
	case rep.withFile != (w.file != ""):
		r.violation("report %d (%s): sent with a file %v, its row %d names %q", rep.n, rep.credit, rep.withFile, w.id, w.file)
	case rep.mode == again && (len(oks) < 2 || !oks[len(oks)-1].replayed):
		r.violation("report %d (%s): sent again after its 200, and the answer was not the first one replayed", rep.n, rep.credit)
	case rep.mode == twin && len(oks) < 2:
		r.violation("report %d (%s): sent twice, %d answered 200", rep.n, rep.credit, len(oks))
	}
}

// rows reads the staging table straight from the database.
func (s *soak) rows(ctx context.Context) ([]row, error) { return rowsOf(ctx, s.c.DSN) }

// rowsOf reads the staging table of the database at dsn.
func rowsOf(ctx context.Context, dsn string) ([]row, error) {
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	q, err := db.QueryContext(ctx, `SELECT id, numero_credito, CAST(monto_solicitado AS CHAR), COALESCE(file_name, ''),
		COALESCE(idempotency_key, ''), COALESCE(payload_sha256, ''), partner_user FROM partner_disbursement_staging`)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	var out []row
	for q.Next() {
		var w row
		var monto string
		if err := q.Scan(&w.id, &w.credit, &monto, &w.file, &w.key, &w.sum, &w.user); err != nil {
			return nil, err
		}
		whole, _, _ := strings.Cut(monto, ".")
		if v, err := strconv.Atoi(whole); err == nil {
			w.n = v - montoBase
		} else {
			w.n = -1
		}
		out = append(out, w)
	}
	return out, q.Err()
}

// objects lists everything under the soak's prefix, straight from the
// bucket, but the store's own probes.
func (s *soak) objects(ctx context.Context) (published, quarantined map[string]bool, err error) {
	cl := storetest.S3Client(s.c.S3)
	published, quarantined = map[string]bool{}, map[string]bool{}
	pages := s3.NewListObjectsV2Paginator(cl, &s3.ListObjectsV2Input{Bucket: &s.c.S3.Bucket, Prefix: aws.String(s.c.S3.Prefix)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, nil, err
		}
		for _, o := range page.Contents {
			name := strings.TrimPrefix(aws.ToString(o.Key), s.c.S3.Prefix)
			switch {
			case strings.HasPrefix(name, probePrefix):
			case strings.HasPrefix(name, s3upload.QuarantinePrefix):
				// The sweep's quarantine (contract §10): files of reports
				// that were never stored, kept for uploads.quarantine_retention.
				quarantined[strings.TrimPrefix(name, s3upload.QuarantinePrefix)] = true
			default:
				published[name] = true
			}
		}
	}
	return published, quarantined, nil
}
