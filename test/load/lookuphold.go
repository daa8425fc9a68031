package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/lender/disbursementd/test/storetest"
)

// The look-up hold (issue 32, finding 5): -page-partners other partners
// (a NIT each), each with -page-rows reports, page through them back to
// back with -page-c clients each: GET /v1/reports?limit=-page-limit,
// following next_cursor to the end and starting again. Before the fix
// four or five such partners held all 16 look-up slots and the measured
// partner's look-ups got 503; now a partner with no look-up running
// always gets one. The measured partner's look-ups (-edge-lookups) are
// the figure: their share not answered 200.
const modeLookupHold = "lookup-hold"

// pageUser is the i-th paging partner's user name.
func pageUser(i int) string { return fmt.Sprintf("loadtest-pager-%d", i) }

// seedLookupHold adds the paging partners and gives each its rows.
func (e *environment) seedLookupHold() error {
	start := time.Now()
	ctx := context.Background()
	for i := range e.o.pagePartners {
		if err := e.addUser(pageUser(i), attackNIT(100+i)); err != nil {
			return err
		}
		if err := storetest.SeedRows(ctx, e.driver, e.svcDSN, pageUser(i), fmt.Sprintf("pager-%d-", i), e.o.pageRows); err != nil {
			return err
		}
	}
	if err := storetest.Analyze(ctx, e.driver, e.svcDSN); err != nil {
		return err
	}
	log.Printf("%s: %d partners of %d rows seeded in %s", modeLookupHold, e.o.pagePartners, e.o.pageRows, time.Since(start).Round(time.Second))
	return nil
}

// lookupHoldAttack returns the paging partners' clients.
func (e *environment) lookupHoldAttack() (string, func(stop <-chan struct{}, out *attackOutcomes, wg *sync.WaitGroup) error) {
	o := e.o
	what := fmt.Sprintf("%d other partners (a NIT each, %d rows each) paging back to back, %d clients each, GET /v1/reports?limit=%d to the end and again",
		o.pagePartners, o.pageRows, o.pageConc, o.pageLimit)
	return what, func(stop <-chan struct{}, out *attackOutcomes, wg *sync.WaitGroup) error {
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.pagePartners * o.pageConc}, Timeout: 30 * time.Second}
		for i := range o.pagePartners {
			tok, err := e.tokenFor(pageUser(i))
			if err != nil {
				return err
			}
			for range o.pageConc {
				wg.Add(1)
				go func() {
					defer wg.Done()
					e.pageBackToBack(client, tok, stop, out)
				}()
			}
		}
		return nil
	}
}

// pageBackToBack pages through the partner's reports until stop, as fast
// as it is answered; a 503 or 429 pauses 10 ms (not Retry-After: an
// attacker need not wait) and starts the listing again.
func (e *environment) pageBackToBack(client *http.Client, tok string, stop <-chan struct{}, out *attackOutcomes) {
	cursor := ""
	for {
		select {
		case <-stop:
			return
		default:
		}
		u := fmt.Sprintf("%s/v1/reports?limit=%d", e.svcURL, e.o.pageLimit)
		if cursor != "" {
			u += "&cursor=" + url.QueryEscape(cursor)
		}
		req, _ := http.NewRequest("GET", u, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := client.Do(req)
		if err != nil {
			out.add("failed")
			cursor = ""
			continue
		}
		var page struct {
			NextCursor *string `json:"next_cursor"`
		}
		raw, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		out.add(fmt.Sprint(resp.StatusCode))
		cursor = ""
		if resp.StatusCode == http.StatusOK && json.Unmarshal(raw, &page) == nil && page.NextCursor != nil {
			cursor = *page.NextCursor
		}
		if resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusTooManyRequests {
			time.Sleep(10 * time.Millisecond)
		}
	}
}
