package config

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestDerived(t *testing.T) {
	c := Defaults()
	// SQLite: at most 4 readers beside the one writer, all kept idle.
	if c.Store.PoolSize() != 4 || c.Store.IdleConns() != 4 || c.Store.Writers() != 1 || c.Store.GaleraWriters() != 0 || c.ThrottleBackend() != "memory" {
		t.Errorf("sqlite: pool %d idle %d writers %d (%d on Galera) throttle %s", c.Store.PoolSize(), c.Store.IdleConns(), c.Store.Writers(), c.Store.GaleraWriters(), c.ThrottleBackend())
	}
	// A caller that moves to MySQL after Load gets MySQL's values.
	c.Store.Driver, c.Store.MaxOpenConns = "mysql", 16
	if c.Store.PoolSize() != 16 || c.Store.IdleConns() != 16 || c.Store.Writers() != 2 || c.Store.GaleraWriters() != 1 || c.ThrottleBackend() != "database" {
		t.Errorf("mysql: idle %d writers %d (%d on Galera) throttle %s", c.Store.IdleConns(), c.Store.Writers(), c.Store.GaleraWriters(), c.ThrottleBackend())
	}
	c.Store.MaxIdleConns, c.Store.BatchWriters, c.Throttle.Backend = 8, 3, "memory"
	if c.Store.IdleConns() != 8 || c.Store.Writers() != 3 || c.Store.GaleraWriters() != 0 || c.ThrottleBackend() != "memory" {
		t.Errorf("explicit: idle %d writers %d (%d on Galera) throttle %s", c.Store.IdleConns(), c.Store.Writers(), c.Store.GaleraWriters(), c.ThrottleBackend())
	}
	// Bodies being received: by default 4 × http.max_in_flight in all,
	// http.max_in_flight for one partner, following a later change.
	if c.HTTP.Receiving() != 1024 || c.HTTP.ReceivingPerPartner() != 256 {
		t.Errorf("receiving: %d in all, %d per partner", c.HTTP.Receiving(), c.HTTP.ReceivingPerPartner())
	}
	c.HTTP.MaxInFlight = 10
	if c.HTTP.Receiving() != 40 || c.HTTP.ReceivingPerPartner() != 10 {
		t.Errorf("receiving after max_in_flight 10: %d in all, %d per partner", c.HTTP.Receiving(), c.HTTP.ReceivingPerPartner())
	}
	c.HTTP.MaxReceiving = 5
	if c.HTTP.Receiving() != 5 || c.HTTP.ReceivingPerPartner() != 5 {
		t.Errorf("receiving 5: %d in all, %d per partner", c.HTTP.Receiving(), c.HTTP.ReceivingPerPartner())
	}
	c.Uploads.MaxFileBytes, c.HTTP.ReportTimeout = 1<<20, time.Minute
	if c.Uploads.MinFree() != 2<<20 || c.HTTP.StaleBound() != 65*time.Second {
		t.Errorf("after max_file_bytes 1MiB and report_timeout 1m: min free %v, stale bound %s", c.Uploads.MinFree(), c.HTTP.StaleBound())
	}
}

// TestDerivedShownInEffect: the start-up log and config print show a
// "0 = auto" setting as the value in effect, and every setting whose doc
// promises a 0 or auto resolved from elsewhere has its method in derived.
func TestDerivedShownInEffect(t *testing.T) {
	r := Defaults().Redacted()
	if r["uploads.min_free_bytes"] != "40MiB" || r["store.batch_writers"] != 1 || r["throttle.backend"] != "memory" ||
		r["http.max_receiving"] != 1024 || r["auth.max_concurrent_hashes"] != runtime.NumCPU() {
		t.Errorf("Redacted() = %v", r)
	}
	for _, s := range Settings() {
		// log.format's auto depends on where the log goes, which the
		// logger alone knows.
		auto := strings.Contains(s.Doc, "0 = ") && !strings.Contains(s.Doc, "0 = never") && !strings.Contains(s.Doc, "0 = only") ||
			strings.HasPrefix(s.Doc, "auto ") && s.Key != "log.format"
		if _, ok := derived[s.Key]; auto != ok {
			t.Errorf("%s: doc %q, in derived: %v", s.Key, s.Doc, ok)
		}
	}
}
