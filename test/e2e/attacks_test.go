package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// The attacks of issue #10, each reproduced at a scale that shows its
// bound, through a real listener; on both stores where the store matters.

// onBothStores runs fn on SQLite and on MariaDB; on MariaDB each instance
// that store configures gets a fresh database.
func onBothStores(t *testing.T, fn func(t *testing.T, store func(*config.Config))) {
	t.Run("sqlite", func(t *testing.T) { fn(t, func(*config.Config) {}) })
	t.Run("mysql", func(t *testing.T) {
		storetest.ServerDSN(t)
		fn(t, func(c *config.Config) { testkit.WithMySQL(t)(c) })
	})
}

// TestAttackOddMethodsDoNotGrowMetrics: 2,000 requests without a token,
// each with its own 60 KB method name, leave /metrics as they found it:
// no series names a method of theirs, and a series appears only for a
// status code the requests got that the first did not (on a busy
// machine some are answered otherwise; the status label is a fixed set).
func TestAttackOddMethodsDoNotGrowMetrics(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t)
	series := func() map[string]bool {
		r := testkit.Call(t, "GET", in.URL+"/metrics", nil, nil)
		out := map[string]bool{}
		for _, line := range strings.Split(string(r.Raw), "\n") {
			if strings.HasPrefix(line, "disbursementd_") {
				out[line[:strings.LastIndexByte(line, ' ')]] = true
			}
		}
		return out
	}
	statuses := map[int]bool{}
	send := func(i int) {
		req, _ := http.NewRequest(fmt.Sprintf("X%d%s", i, strings.Repeat("M", 60<<10)), in.URL+"/api/partner_api.php", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			statuses[resp.StatusCode] = true
			resp.Body.Close()
		}
	}
	send(0)
	// Every readiness series exists before the count: the service's own
	// first run of the checks may still be under way on a busy machine
	// (CI once saw disbursementd_ready{check="keys"} appear meanwhile).
	testkit.Call(t, "GET", in.URL+"/readyz", nil, nil)
	series()
	before, first := series(), len(statuses)
	for i := 1; i <= 2000; i++ {
		send(i)
	}
	after, size := series(), len(testkit.Call(t, "GET", in.URL+"/metrics", nil, nil).Raw)
	var added []string
	for k := range after {
		if strings.Contains(k, "MMMM") || strings.Contains(k, "X1") {
			t.Fatalf("/metrics names an odd method: %.200s", k)
		}
		if !before[k] {
			added = append(added, k)
		}
	}
	if len(added) > len(statuses)-first || size > 64<<10 {
		t.Fatalf("/metrics: %d series before, %d after 2,000 odd methods (%d bytes); new: %q; statuses %v", len(before), len(after), size, added, statuses)
	}
	t.Logf("/metrics: %d series before, %d after 2,000 odd methods (new: %q, statuses %v), %d bytes", len(before), len(after), added, statuses, size)
}

// TestAttackMemberBomb: a 33 MB body {"a":0,"a":0,…} with a valid token,
// three at once, gets a small 400 too_many_members each, and the heap
// never holds more than the bodies themselves and a little. The three
// come from three partners: one partner's share of the bytes in flight
// (a quarter) holds one such body, and its second would be 503 overloaded
// (TestNamesOfOnePartnerCannotHoldTheBytes in adapters/httpapi).
func TestAttackMemberBomb(t *testing.T) {
	in := testkit.MustStart(t)
	toks := make([]string, 3)
	for i := range toks {
		user := fmt.Sprintf("%s-%d", testkit.Partner, i)
		in.AddUser(t, user, fmt.Sprintf("8001235%02d", i), testkit.Password)
		toks[i] = in.Token(t, user, testkit.Password)
	}
	bomb := []byte("{" + strings.TrimSuffix(strings.Repeat(`"a":0,`, 33_000_000/6), ",") + "}") // 33 MB, 5.5 M members
	before := liveHeap()
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // the live heap while the bombs are in flight
		defer close(sampled)
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
				if h := liveHeap(); h > peak.Load() {
					peak.Store(h)
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for _, tok := range toks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := in.Report(t, tok, bomb)
			if r.Status != 400 || r.Body["code"] != "too_many_members" || len(r.Raw) > 1024 {
				t.Errorf("member bomb: %d, %d bytes: %.200s", r.Status, len(r.Raw), r.Raw)
			}
		}()
	}
	wg.Wait()
	close(done)
	<-sampled
	// Each request holds its body (33 MB, read once); the test holds one
	// more copy. Anything kept per member would be hundreds of MB more.
	limit := before + uint64(4*len(bomb)) + 32<<20
	if p := peak.Load(); p > limit {
		t.Fatalf("live heap peaked at %d MiB with three 33 MB member bombs in flight; bound %d MiB", p>>20, limit>>20)
	}
	t.Logf("live heap peaked %d MiB above the start with three 33 MB member bombs in flight (bound %d MiB)",
		(peak.Load()-before)>>20, (limit-before)>>20)
}

// liveHeap is the heap a collection just found reachable. The bound is on
// what is held; HeapAlloc between collections also counts garbage not yet
// collected, which grows when a busy machine slows the collector, and that
// is not what the bound is about.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestAttackConcurrentPasswordGuesses: 60 wrong passwords at once for one
// user make at most 10 password checks (the other 50 are 429 without any
// check), and 80 unknown users at once from one address at most 30. An
// attempt answered 503 temporarily_unavailable (a busy machine kept it
// from a bcrypt slot or the store) spent no budget (Auth releases its
// slots), so it is sent again, as a client would, until it is a check
// or a 429.
func TestAttackConcurrentPasswordGuesses(t *testing.T) {
	t.Parallel()
	onBothStores(t, func(t *testing.T, store func(*config.Config)) {
		for _, tt := range []struct {
			name    string
			n, want int
			user    func(i int) string
			setup   func(*config.Config)
		}{
			{"one user", 60, 10, func(int) string { return testkit.Partner }, func(c *config.Config) { c.Throttle.AddrFailures = 0 }},
			{"one address", 80, 30, func(i int) string { return fmt.Sprintf("nobody%d", i) }, func(*config.Config) {}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				in := testkit.MustStart(t, store, tt.setup)
				in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
				var checked, throttled atomic.Int64
				var wg sync.WaitGroup
				for i := range tt.n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						r := testkit.Exchange(t, in, tt.user(i), "wrong password", nil)
						for deadline := time.Now().Add(time.Minute); r.Status == 503 && r.Body["error"] == "temporarily_unavailable" && time.Now().Before(deadline); {
							time.Sleep(100 * time.Millisecond)
							r = testkit.Exchange(t, in, tt.user(i), "wrong password", nil)
						}
						switch r.Status {
						case 400:
							checked.Add(1)
						case 429:
							throttled.Add(1)
						default:
							t.Errorf("attempt %d: %d %s", i, r.Status, r.Raw)
						}
					}()
				}
				wg.Wait()
				if checked.Load() != int64(tt.want) || throttled.Load() != int64(tt.n-tt.want) {
					t.Fatalf("%d concurrent attempts: %d password checks, %d throttled; want %d and %d",
						tt.n, checked.Load(), throttled.Load(), tt.want, tt.n-tt.want)
				}
				t.Logf("%d concurrent attempts: %d password checks, %d throttled", tt.n, checked.Load(), throttled.Load())
			})
		}
	})
}

// TestAttackUserNameLookalikes: ACME, Acme, acmé and "acme   " with
// acme's password are other names, not acme, on every store; each is
// refused, and none spends or escapes acme's budget.
func TestAttackUserNameLookalikes(t *testing.T) {
	t.Parallel()
	onBothStores(t, func(t *testing.T, store func(*config.Config)) {
		in := testkit.MustStart(t, store)
		in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
		for _, name := range []string{"ACME", "Acme", "acmé", "acme   ", " acme", "acme\u00a0"} {
			if r := testkit.Exchange(t, in, name, testkit.Password, nil); r.Status != 400 || r.Body["error"] != "invalid_client" {
				t.Errorf("%q with acme's password: %d %s", name, r.Status, r.Raw)
			}
		}
		if r := testkit.Exchange(t, in, testkit.Partner, testkit.Password, nil); r.Status != 200 {
			t.Fatalf("acme itself: %d %s", r.Status, r.Raw)
		}
	})
}

// TestAttackLongNamesFromManyAddresses: 9,000 logins with 15 KB user
// names from 300 addresses are refused without hashing, the log holds no
// such name and stays small (one line per attempt until an address is
// throttled, then one line per address and window), and nothing of them
// stays in memory (the throttle keeps at most throttle.max_entries keys,
// the names none).
func TestAttackLongNamesFromManyAddresses(t *testing.T) {
	in := testkit.MustStart(t, func(c *config.Config) {
		c.HTTP.TrustedProxies = append(c.HTTP.TrustedProxies, mustPrefix("127.0.0.0/8"))
		c.Throttle.MaxEntries = 200
	})
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	logBefore := len(in.Logs.String())
	name := strings.Repeat("n", 15<<10)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	var statuses sync.Map
	for i := range 9000 {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			addr := fmt.Sprintf("198.51.%d.%d", i%300/250, i%300%250+1)
			r := testkit.Exchange(t, in, fmt.Sprintf("%s%d", name, i), "pw", map[string]string{"X-Forwarded-For": addr})
			n, _ := statuses.LoadOrStore(r.Status, new(atomic.Int64))
			n.(*atomic.Int64).Add(1)
		}()
	}
	wg.Wait()
	count := func(s int) int64 {
		if n, ok := statuses.Load(s); ok {
			return n.(*atomic.Int64).Load()
		}
		return 0
	}
	if count(400)+count(429) != 9000 {
		t.Errorf("answers: %d × 400, %d × 429; want only those", count(400), count(429))
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 32<<20 {
		t.Errorf("the heap kept %d MiB after 9,000 logins with 15 KB names", grown>>20)
	}
	logs := in.Logs.String()[logBefore:]
	if strings.Contains(logs, name[:64]) {
		t.Fatal("a 15 KB user name reached the log")
	}
	if len(logs) > 9000*600 {
		t.Fatalf("%d bytes of logs for 9,000 refused logins", len(logs))
	}
	t.Logf("9,000 logins with 15 KB names: %d × 400, %d × 429; heap kept %d KiB; %d bytes of logs",
		count(400), count(429), (int64(after.HeapAlloc)-int64(before.HeapAlloc))>>10, len(logs))
	if r := testkit.Exchange(t, in, testkit.Partner, testkit.Password, nil); r.Status != 200 {
		t.Fatalf("the real user after the flood: %d %s", r.Status, r.Raw)
	}
}

// TestAttackPasswordInUserField: a password typed in the user field is
// never logged (the log names only known users; the leak check of
// testkit's watch fails the test if the password appears anywhere).
func TestAttackPasswordInUserField(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t)
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	if r := testkit.Exchange(t, in, testkit.Password, testkit.Partner, nil); r.Status != 400 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if strings.Contains(in.Logs.String(), testkit.Password) {
		t.Fatal("the password typed as the user name was logged")
	}
}

// TestAttackSameReportOtherSpelling: the same report sent again with
// other whitespace, key order, key spelling or numbers as strings is
// stored once and answered with the first answer, with or without the
// same Idempotency-Key.
func TestAttackSameReportOtherSpelling(t *testing.T) {
	t.Parallel()
	onBothStores(t, func(t *testing.T, store func(*config.Config)) {
		in := testkit.MustStart(t, store)
		in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
		tok := in.Token(t, testkit.Partner, testkit.Password)
		body := fixture.FullBody(time.Now(), "CR-SPELL-1", fixture.PDF(3000))
		compact := testkit.MustJSON(body)
		spaced := bytes.ReplaceAll(bytes.ReplaceAll(compact, []byte(`":`), []byte(`" :  `)), []byte(`,"`), []byte(",\n  \""))
		respelled := map[string]any{}
		for k, v := range body {
			respelled[k] = v
		}
		delete(respelled, "Plazo (meses)")
		respelled["PLAZO  (MESES)"] = string(body["Plazo (meses)"].(json.Number)) // the number as a string
		for _, key := range []string{"", "CR-SPELL-1-v1"} {
			var headers []string
			if key != "" {
				headers = []string{"Idempotency-Key", key}
			}
			first := in.Report(t, tok, compact, headers...)
			if first.Status != 200 {
				t.Fatalf("first: %d %s", first.Status, first.Raw)
			}
			for name, b := range map[string][]byte{"whitespace": spaced, "key spelling and a numeric string": testkit.MustJSON(respelled)} {
				r := in.Report(t, tok, b, headers...)
				if r.Status != 200 || r.Header.Get("Idempotent-Replayed") != "true" || r.Body["id"] != first.Body["id"] || r.Body["file"] != first.Body["file"] {
					t.Errorf("key %q, other %s: %d %s; want the first answer (%s)", key, name, r.Status, r.Raw, first.Raw)
				}
			}
		}
		if n := countReports(t, in); n != 2 {
			t.Fatalf("%d rows, want 2 (one unkeyed, one keyed)", n)
		}
	})
}

func countReports(t *testing.T, in *testkit.Instance) int64 {
	t.Helper()
	return storetest.CountReports(t, in.Config.Store.Driver, in.Config.Store.DSN)
}
