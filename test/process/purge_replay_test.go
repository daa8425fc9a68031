package process

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

func TestReplayAfterPurgeSQLite(t *testing.T) {
	t.Parallel()
	replayAfterPurge(t, "sqlite")
}

func TestReplayAfterPurgeMySQL(t *testing.T) {
	t.Parallel()
	replayAfterPurge(t, "mysql")
}

// replayAfterPurge: issue 32's noted item. Reports the retention purge
// deleted while their idempotency records live (idempotency.ttl was
// longer when they were stored than the retention the purge ran with;
// here their receipt time is moved back in the database) are sent again:
// each path answers 410 report_purged in its own shape (legacy: status
// "400"; /v1: a problem), not 503 file_store_failed nor a 200 naming a
// report that is gone, and nothing is stored again; with a new
// Idempotency-Key the report is stored anew.
func replayAfterPurge(t *testing.T, driver string) {
	rig := startPurgeRig(t, driver)
	dir, env, in, tok := rig.dir, rig.env, rig.in, rig.tok
	today := time.Now().UTC()
	bearer := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + tok}
	type sent struct {
		name string
		send func(key string) testkit.Reply
	}
	legacy := func(body map[string]any) func(string) testkit.Reply {
		return func(key string) testkit.Reply {
			if key == "" {
				return in.Report(t, tok, testkit.MustJSON(body))
			}
			return in.Report(t, tok, testkit.MustJSON(body), "Idempotency-Key", key)
		}
	}
	v1 := func(body map[string]any) func(string) testkit.Reply {
		return func(key string) testkit.Reply {
			h := map[string]string{"Idempotency-Key": key}
			for k, v := range bearer {
				h[k] = v
			}
			if key == "" {
				delete(h, "Idempotency-Key")
			}
			return testkit.Call(t, "POST", in.URL+"/v1/reports", h, testkit.MustJSON(body))
		}
	}
	reports := []sent{
		{"legacy with a file, unkeyed", legacy(fixture.FullBody(today, "CR-PR-1", fixture.PDF(1400)))},
		{"legacy without a file, keyed", legacy(fixture.Minimal(today, "CR-PR-2"))},
		{"v1 with a file, keyed", v1(fixture.FullV1(today, "CR-PR-3", fixture.PDF(1401)))},
		{"v1 without a file, keyed", v1(fixture.Minimal(today, "CR-PR-4"))},
	}
	key := func(i int) string {
		if i == 0 {
			return ""
		}
		return fmt.Sprintf("purged-%d", i)
	}
	var ids []int64
	for i, r := range reports {
		got := r.send(key(i))
		if got.Status != 200 && got.Status != 201 {
			t.Fatalf("%s: %d %s", r.name, got.Status, got.Raw)
		}
		id, _ := strconv.ParseInt(fmt.Sprint(got.Body["id"]), 10, 64)
		ids = append(ids, id)
	}
	rig.age(t, ids...)
	if out, err := testkit.CLI(t, dir, env, "", "reports", "purge", "--older-than", "1825d"); err != nil || !strings.Contains(out, "deleted 4 reports and 2 files") {
		t.Fatalf("purge: %v\n%s", err, out)
	}

	for i, r := range reports {
		got := r.send(key(i))
		code, _ := got.Body["code"].(string)
		if got.Status != 410 || code != "report_purged" {
			t.Errorf("%s again after its purge: %d %s; want 410 report_purged", r.name, got.Status, got.Raw)
			continue
		}
		if strings.HasPrefix(r.name, "legacy") && got.Body["status"] != "400" {
			t.Errorf("%s: the legacy answer's status member is %v, want \"400\"", r.name, got.Body["status"])
		}
		if strings.HasPrefix(r.name, "v1") && (got.Body["status"] != float64(410) || !strings.HasPrefix(got.Header.Get("Content-Type"), "application/problem+json")) {
			t.Errorf("%s: %s %s; want a 410 problem", r.name, got.Header.Get("Content-Type"), got.Raw)
		}
	}
	if n := storetest.CountReports(t, driver, rig.dsn); n != 0 {
		t.Errorf("%d reports stored by the refused replays, want 0", n)
	}
	if got := reports[1].send("a new key"); got.Status != 200 {
		t.Errorf("the purged report with a new key: %d %s; want it stored anew", got.Status, got.Raw)
	}
}
