package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The byte hold (issue 32, finding 1): -hold-n connections of one
// partner, spread over -hold-names user names of its one NIT, each
// sending POST /v1/reports/validate that declares -hold-declare bytes,
// sends -hold-send of them at once and then a byte every -hold-every (or
// nothing more when 0), starting again when the service answers or cuts
// it, as a persistent attacker would. Before the fix a body reserved
// twice what it declared, one user name held half the bytes in flight,
// and 60 KiB bought 65 s at the minimum body rate: six connections of two
// names held the whole budget. The same mode with small bodies and many
// connections is the count attack (4 names × 256 bodies filled
// http.max_receiving):
//
//	-mode byte-hold                                                     # 6 × 32 MiB declared, 60 KiB sent, 2 names
//	-mode byte-hold -hold-names 4 -hold-n 1024 -hold-declare 4096 -hold-send 8 -hold-every 5s
const modeByteHold = "byte-hold"

// holdUser is the i-th user name of the byte hold's partner.
func holdUser(i int) string { return fmt.Sprintf("loadtest-hold-%d", i) }

// byteHoldAttack adds the holding partner's names and returns the attack.
func (e *environment) byteHoldAttack() (string, func(stop <-chan struct{}, out *attackOutcomes, wg *sync.WaitGroup) error) {
	o := e.o
	what := fmt.Sprintf("%d connections of %d user names of one other partner (one NIT), each declaring %d bytes on POST /v1/reports/validate, sending %d at once",
		o.holdN, o.holdNames, o.holdDeclare, o.holdSend)
	if o.holdEvery > 0 {
		what += fmt.Sprintf(" and then a byte every %s", o.holdEvery)
	} else {
		what += " and then nothing"
	}
	return what + ", starting again when answered or cut", func(stop <-chan struct{}, out *attackOutcomes, wg *sync.WaitGroup) error {
		toks := make([]string, o.holdNames)
		for i := range toks {
			if err := e.addUser(holdUser(i), attackNIT(0)); err != nil {
				return err
			}
			tok, err := e.tokenFor(holdUser(i))
			if err != nil {
				return err
			}
			toks[i] = tok
		}
		addr := strings.TrimPrefix(e.svcURL, "http://")
		for i := range o.holdN {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					out.add(holdBody(addr, toks[i%len(toks)], o.holdDeclare, o.holdSend, o.holdEvery, stop))
				}
			}()
		}
		return nil
	}
}

// holdBody sends one held body until the service answers, the connection
// ends or stop; it returns how it ended.
func holdBody(addr, tok string, declare int64, send int, every time.Duration, stop <-chan struct{}) string {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		time.Sleep(100 * time.Millisecond)
		return "dial failed"
	}
	defer c.Close()
	first := `{"x":"` + strings.Repeat("a", max(send-6, 0))
	fmt.Fprintf(c, "POST /v1/reports/validate HTTP/1.1\r\nHost: load\r\nContent-Type: application/json\r\n"+
		"Authorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s", tok, declare, first)
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
	var tick <-chan time.Time
	if every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-stop:
			return "open at the end"
		case how := <-answered:
			return how
		case <-tick:
			if _, err := c.Write([]byte("a")); err != nil {
				return <-answered
			}
		}
	}
}
