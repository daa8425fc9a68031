package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/lender/disbursementd/test/fixture"
)

// The NFC growth (issue 32, finding 6): -nfc-n clients of another
// partner each validating, again and again, a body of -nfc-mib MiB whose
// Observaciones is U+1D160 throughout (4 bytes, 12 in NFC). Before the
// fix the text was put in NFC before its field's maximum (1,000
// characters) was looked at: six at once took the service to 963 MiB RSS
// under GOMEMLIMIT=768MiB. Run it under the shipped limits:
//
//	-mode nfc-growth -env GOMEMLIMIT=768MiB -mem-max 1GiB
//
// The results add the service's peak RSS beside the attack and, with
// -mem-max, the cgroup's peak and the processes the kernel killed.
const modeNFCGrowth = "nfc-growth"

const nfcUser = "loadtest-nfc"

// nfcBody is a /v1 report whose Observaciones fills a body of size bytes
// with U+1D160.
func nfcBody(size int) ([]byte, error) {
	body := fixture.DecimalsAsStrings(fixture.Minimal(time.Now(), "CR-NFC-LOAD"))
	body["Observaciones"] = ""
	base, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	body["Observaciones"] = strings.Repeat("\U0001D160", max(size-len(base), 4)/4)
	return json.Marshal(body) // U+1D160 stays 4 bytes: encoding/json does not escape it
}

// nfcGrowthAttack returns the attack's clients.
func (e *environment) nfcGrowthAttack() (string, func(stop <-chan struct{}, out *attackOutcomes, wg *sync.WaitGroup) error) {
	o := e.o
	what := fmt.Sprintf("%d clients of another partner validating, one after another, a %.1f MiB body whose Observaciones is U+1D160 throughout",
		o.nfcN, o.nfcMiB)
	return what, func(stop <-chan struct{}, out *attackOutcomes, wg *sync.WaitGroup) error {
		if err := e.addUser(nfcUser, attackNIT(200)); err != nil {
			return err
		}
		tok, err := e.tokenFor(nfcUser)
		if err != nil {
			return err
		}
		body, err := nfcBody(int(o.nfcMiB * (1 << 20)))
		if err != nil {
			return err
		}
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.nfcN}, Timeout: 2 * time.Minute}
		for range o.nfcN {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					req, _ := http.NewRequest("POST", e.svcURL+"/v1/reports/validate", bytes.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+tok)
					req.Header.Set("Content-Type", "application/json")
					resp, err := client.Do(req)
					if err != nil {
						out.add("failed")
						time.Sleep(100 * time.Millisecond)
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
}

// memoryNote is the service's memory beside the attack: its peak RSS
// over the measured run and, with -mem-max, the cgroup's peak and the
// processes the kernel killed in it.
func (e *environment) memoryNote(during result) string {
	if e.o.mode != modeNFCGrowth && e.cg == nil {
		return ""
	}
	note := fmt.Sprintf("\nService memory beside the attack: peak RSS %.0f MiB (VmHWM over the measured run)", float64(during.PeakRSS)/(1<<20))
	if env := e.o.env.String(); strings.Contains(env, "GOMEMLIMIT=") {
		note += ", settings " + env
	}
	if e.cg != nil {
		note += fmt.Sprintf("; memory cgroup of %s: peak %.0f MiB, %d processes killed by the kernel", e.o.memMax, float64(e.cg.peak())/(1<<20), e.cg.ooms())
	}
	return note + ".\n"
}
