package main

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lender/disbursementd/adapters/httpapi"
)

// The attack modes (-mode) measure one partner's reports (W1, or -edge-w,
// closed loop at -edge-c) alone, then again while an attack runs, so that one command gives a build's before and after figures
// (with -bin for the older build):
//
//	slow-body    -slow-n bodies of another partner, each sending "{" and
//	             then a byte every -slow-every, reconnecting when cut
//	             (finding 3: slow bodies held every report slot)
//	login-flood  -attack-c clients sending wrong logins of unknown users
//	             from one address as fast as they are answered (finding
//	             4: with the throttle in the database, each refused login
//	             cost reports their connections); run it once more with
//	             -env DISB_THROTTLE_BACKEND=memory for the memory row
//	list-flood   -list-c clients of a partner with -list-rows reports
//	             asking for full-range pages (listflood.go; issue 25: a
//	             page sorted all of the partner's rows, and on MariaDB
//	             starved every other partner); also says what still runs
//	             10 s after the flood's clients have gone
//	tiff-flood   -tiff-c clients of another partner sending issue 32's
//	             TIFF of finding 4 to /v1/reports/validate (tiffflood.go:
//	             each check cost 20-31 s of CPU and outlived its client);
//	             also says the service's CPU in the 10 s after they left
//	byte-hold    bodies of several user names of one partner declaring
//	             32 MiB and sending 60 KiB (bytehold.go; issue 32,
//	             finding 1)
//	lookup-hold  several partners paging back to back (lookuphold.go;
//	             issue 32, finding 5)
//	nfc-growth   bodies whose text grows under NFC (nfcgrowth.go; issue
//	             32, finding 6), with the service's peak memory
//
// The measured partner's look-ups run beside its reports, alone and
// beside the attack (-edge-lookups clients; edgelookups.go). Every
// attacking partner has a NIT of its own (env.go's attackNIT): the
// service's bounds are a partner's, all its user names together.
const (
	modeLevels     = "levels"
	modeSlowBody   = "slow-body"
	modeLoginFlood = "login-flood"
)

// attackOutcomes counts how the attack's requests ended, by HTTP status
// (or "cut" when the connection ended without an answer).
type attackOutcomes struct {
	mu sync.Mutex
	n  map[string]int
}

func (a *attackOutcomes) add(what string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n == nil {
		a.n = map[string]int{}
	}
	a.n[what]++
}

func (a *attackOutcomes) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var parts []string
	for k, v := range a.n {
		parts = append(parts, fmt.Sprintf("%s: %d", k, v))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "none answered"
	}
	return strings.Join(parts, ", ")
}

// runEdge runs an attack mode and writes its results.
func runEdge(o options) error {
	env, err := newEnvironment(o)
	if err != nil {
		return err
	}
	defer env.close()
	w, err := edgeWorkload(o)
	if err != nil {
		return err
	}
	var start func(stop <-chan struct{}, out *attackOutcomes, wg *sync.WaitGroup) error
	var attack string
	switch o.mode {
	case modeSlowBody:
		attack = fmt.Sprintf("%d slow bodies of another partner, a byte every %s", o.slowN, o.slowEvery)
		start = env.slowBodies
	case modeLoginFlood:
		attack = fmt.Sprintf("%d clients of wrong logins from one address", o.attackConc)
		start = env.loginFlood
	case modeListFlood:
		attack = fmt.Sprintf("%d clients of another partner (%d rows) asking for GET %s, each giving up after %s",
			o.listConc, o.listRows, listPath, o.listTimeout)
		start = env.listFlood
	case modeTIFFFlood:
		attack = fmt.Sprintf("%d clients of another partner sending finding 4's TIFF to POST /v1/reports/validate, each giving up after %s",
			o.tiffConc, o.tiffTimeout)
		start = env.tiffFlood
	case modeByteHold:
		attack, start = env.byteHoldAttack()
	case modeLookupHold:
		attack, start = env.lookupHoldAttack()
	case modeNFCGrowth:
		attack, start = env.nfcGrowthAttack()
	default:
		return fmt.Errorf("-mode %q: %s", o.mode, strings.Join(append([]string{modeLevels}, attackModes...), ", "))
	}
	if err := env.seedFor(o.mode); err != nil {
		return err
	}
	log.Printf("%s: %s reports at c=%d alone", o.mode, w.name, o.edgeConc)
	alone, aloneLookups, err := env.measureBeside(w)
	if err != nil {
		return err
	}
	stop, out, wg := make(chan struct{}), &attackOutcomes{}, &sync.WaitGroup{}
	if err := start(stop, out, wg); err != nil {
		return err
	}
	time.Sleep(2 * time.Second) // the attack takes its hold first
	log.Printf("%s: %s reports at c=%d beside %s", o.mode, w.name, o.edgeConc, attack)
	during, duringLookups, err := env.measureBeside(w)
	close(stop)
	wg.Wait()
	if err != nil {
		return err
	}
	text := edgeTable(o, w.name, attack, alone, during, out) + lookupTable(o.edgeLookups, aloneLookups, duringLookups) + env.memoryNote(during)
	if o.mode == modeTIFFFlood {
		fmt.Print(text)
		after := env.cpuAfter()
		text += after
		fmt.Print(after)
	} else if o.mode == modeListFlood {
		fmt.Print(text) // the measurement is kept even if what follows fails
		left, err := env.leftRunning()
		if err != nil {
			left = fmt.Sprintf("10 s after the flood's clients had gone: not read (%v).\n", err)
		}
		text += left
		fmt.Print(left)
	} else {
		fmt.Print(text)
	}
	return writeAttackResults(o, env, text)
}

// writeAttackResults writes an attack mode's text to the results file,
// under how it was measured.
func writeAttackResults(o options, env *environment, text string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Attack results: %s (%s)\n\n", o.mode, time.Now().UTC().Format(time.RFC3339))
	for _, a := range newReport(o, env).about {
		fmt.Fprintf(&b, "- %s\n", a)
	}
	b.WriteString("\n" + text)
	if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(o.out, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Printf("\nresults written to %s\n", o.out)
	return nil
}

// attackModes are the -mode values besides levels.
var attackModes = []string{modeSlowBody, modeLoginFlood, modeListFlood, modeTIFFFlood, modeByteHold, modeLookupHold, modeNFCGrowth, modeWebhookHang}

// edgeWorkload is the measured reports' workload: -edge-w (W1 unless
// given; W2 carries a 200 KB PDF, so its body needs the byte budget too).
func edgeWorkload(o options) (workload, error) {
	for _, w := range workloads(o) {
		if w.name == o.edgeW {
			return w, nil
		}
	}
	return workload{}, fmt.Errorf("-edge-w %q: W1, W2, V1 or V2", o.edgeW)
}

// seedFor gives the partners of an attack mode their rows, before
// anything is measured, so that alone and beside meet the same tables.
func (e *environment) seedFor(mode string) error {
	switch mode {
	case modeListFlood:
		return e.seedListFlood()
	case modeLookupHold:
		return e.seedLookupHold()
	}
	return nil
}

// measureBeside runs the measured reports for one run, and the same
// partner's look-ups (-edge-lookups clients) beside them.
func (e *environment) measureBeside(w workload) (result, *lookupTally, error) {
	stop := make(chan struct{})
	lookups := e.measuredLookups(e.o.edgeLookups, stop)
	r, err := e.attackService(w, e.o.edgeConc, 0)
	close(stop)
	return r, lookups(), err
}

func edgeTable(o options, workload, attack string, alone, during result, out *attackOutcomes) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| %s c=%d | reports | answered 200 | req/s | p50 ms | p99 ms | not 200 |\n|---|---|---|---|---|---|---|\n", workload, o.edgeConc)
	for _, r := range []struct {
		name string
		res  result
	}{{"alone", alone}, {"beside the attack", during}} {
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s | %d |\n", r.name, r.res.Requests, r.res.OK, num(r.res.Throughput),
			ms(r.res.P50), ms(r.res.P99), r.res.Errors)
	}
	fmt.Fprintf(&b, "\nAttack: %s. Its requests ended: %s.\n", attack, out)
	if alone.Throughput > 0 {
		fmt.Fprintf(&b, "Throughput kept beside the attack: %.2f of alone.\n", during.Throughput/alone.Throughput)
	}
	return b.String()
}

// slowBodies keeps -slow-n report bodies of a second partner arriving a
// byte at a time until stop; a body the service cuts or refuses is
// started again, as a persistent attacker would.
func (e *environment) slowBodies(stop <-chan struct{}, out *attackOutcomes, wg *sync.WaitGroup) error {
	const slowUser = "loadtest-slow"
	if err := e.addUser(slowUser, slowNIT); err != nil {
		return err
	}
	tok, err := e.tokenFor(slowUser)
	if err != nil {
		return err
	}
	addr := strings.TrimPrefix(e.svcURL, "http://")
	for range e.o.slowN {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				out.add(slowBody(addr, tok, e.o.slowEvery, stop))
			}
		}()
	}
	return nil
}

// slowBody sends one slow report body until the service answers, the
// connection ends or stop; it returns how it ended.
func slowBody(addr, tok string, every time.Duration, stop <-chan struct{}) string {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		time.Sleep(100 * time.Millisecond)
		return "dial failed"
	}
	defer c.Close()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: load\r\nContent-Type: application/json\r\n"+
		"Authentication-Type: bearer %s\r\nContent-Length: 4096\r\n\r\n{", httpapi.PartnerPath, tok)
	answered := make(chan string, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			answered <- "cut"
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		answered <- fmt.Sprint(resp.StatusCode)
	}()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return "open at the end"
		case how := <-answered:
			return how
		case <-tick.C:
			if _, err := c.Write([]byte(" ")); err != nil {
				return <-answered
			}
		}
	}
}

// loginFlood sends wrong logins of unknown users from one address with
// -attack-c clients until stop.
func (e *environment) loginFlood(stop <-chan struct{}, out *attackOutcomes, wg *sync.WaitGroup) error {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: e.o.attackConc}, Timeout: time.Minute}
	for i := range e.o.attackConc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; ; j++ {
				select {
				case <-stop:
					return
				default:
				}
				body := fmt.Sprintf(`{"user":"flood-%d-%d","password":"wrong"}`, i, j)
				req, _ := http.NewRequest("GET", e.svcURL+httpapi.PartnerPath, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					out.add("failed")
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				out.add(fmt.Sprint(resp.StatusCode))
			}
		}()
	}
	return nil
}
