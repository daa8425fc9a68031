package process

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

func TestReportsPurgeSQLite(t *testing.T) {
	t.Parallel()
	purgeFlow(t, "sqlite")
}

func TestReportsPurgeMySQL(t *testing.T) {
	t.Parallel()
	purgeFlow(t, "mysql")
}

// purgeFlow: reports received years ago (their receipt time moved back
// in the database: no test waits years) are deleted with their files,
// one of them in quarantine; a dry run only counts; a young report and
// its file stay; a retention shorter than idempotency.ttl, or none, is
// refused; afterwards reconcile finds nothing missing and nothing
// orphaned.
func purgeFlow(t *testing.T, driver string) {
	rig := startPurgeRig(t, driver)
	dir, env, p, in, tok := rig.dir, rig.env, rig.p, rig.in, rig.tok
	type stored struct {
		id   int64
		file string
	}
	var all []stored
	for i := range 4 {
		r := in.Report(t, tok, testkit.MustJSON(fixture.FullBody(time.Now().UTC(), fmt.Sprintf("CR-PURGE-%d", i), fixture.PDF(1500+i))))
		name, _ := r.Body["file"].(string)
		if r.Status != 200 || name == "" {
			t.Fatalf("report %d: %d %s", i, r.Status, r.Raw)
		}
		id, _ := strconv.ParseInt(fmt.Sprint(r.Body["id"]), 10, 64)
		all = append(all, stored{id, name})
	}
	p.Kill()
	rig.age(t, all[0].id, all[1].id, all[2].id)
	uploads := filepath.Join(dir, "data", "uploads")
	// One old file is in quarantine (moved there by an earlier restore).
	if err := os.MkdirAll(filepath.Join(uploads, ".quarantine"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(uploads, all[2].file), filepath.Join(uploads, ".quarantine", all[2].file)); err != nil {
		t.Fatal(err)
	}

	for args, want := range map[string]int{"reports purge": 2, "reports purge --older-than 1h": 2, "reports purge --older-than x": 2} {
		out, err := testkit.CLI(t, dir, env, "", strings.Fields(args)...)
		if code := exitCode(err); code != want {
			t.Errorf("%s: exit %d, want %d\n%s", args, code, want, out)
		}
	}
	out, err := testkit.CLI(t, dir, env, "", "reports", "purge", "--older-than", "1825d", "--dry-run")
	if err != nil || !strings.Contains(out, "would delete 3 reports and 3 files received before ") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	for _, s := range all[:2] {
		if _, err := os.Stat(filepath.Join(uploads, s.file)); err != nil {
			t.Fatalf("the dry run deleted %s: %v", s.file, err)
		}
	}
	out, err = testkit.CLI(t, dir, append(env, "DISB_RETENTION_REPORTS=1825d"), "", "reports", "purge")
	if err != nil || !strings.Contains(out, "deleted 3 reports and 3 files received before ") {
		t.Fatalf("purge: %v\n%s", err, out)
	}
	for _, s := range all[:3] {
		for _, where := range []string{s.file, filepath.Join(".quarantine", s.file)} {
			if _, err := os.Stat(filepath.Join(uploads, where)); !os.IsNotExist(err) {
				t.Errorf("%s outlived the purge: %v", where, err)
			}
		}
		if out, err := testkit.CLI(t, dir, env, "", "reports", "show", strconv.FormatInt(s.id, 10)); exitCode(err) != 3 {
			t.Errorf("reports show %d after the purge: %v\n%s", s.id, err, out)
		}
	}
	young := all[3]
	if _, err := os.Stat(filepath.Join(uploads, young.file)); err != nil {
		t.Fatalf("the young report's file was deleted: %v", err)
	}
	if out, err := testkit.CLI(t, dir, env, "", "reports", "show", strconv.FormatInt(young.id, 10)); err != nil || !strings.Contains(out, ": present (") {
		t.Fatalf("the young report after the purge: %v\n%s", err, out)
	}
	out, err = testkit.CLI(t, dir, env, "", "reconcile")
	if err != nil {
		t.Fatalf("reconcile after the purge: %v\n%s", err, out)
	}
	for _, kind := range []string{"orphan_file", "missing_file"} {
		if !strings.Contains(out, kind+": 0\n") {
			t.Errorf("after the purge reconcile finds %s:\n%s", kind, out)
		}
	}
	if out, err := testkit.CLI(t, dir, env, "", "reports", "purge", "--older-than", "1825d"); err != nil || !strings.Contains(out, "deleted 0 reports and 0 files") {
		t.Errorf("a second purge: %v\n%s", err, out)
	}
}
