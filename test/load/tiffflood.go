package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/lender/disbursementd/test/fixture"
)

// The TIFF flood (issue 32's finding 4): -tiff-c clients of another
// partner, each sending POST /v1/reports/validate with the TIFF of that
// finding as its file (entryBombTIFF: 3.4 MB, four directories of 65,535
// ASCII entries whose values sit at the end, past the first MiB), as
// fast as they are answered, each giving up after -tiff-timeout; the
// measured reports are another partner's. Its requests are counted by
// how they ended. Afterwards it says how much CPU the service used in
// the 10 s after the flood's clients had gone: a check that outlives its
// client shows there.
const (
	modeTIFFFlood = "tiff-flood"
	tiffUser      = "loadtest-tiff"
)

// tiffFlood runs -tiff-c clients of the TIFF until stop.
func (e *environment) tiffFlood(stop <-chan struct{}, out *attackOutcomes, wg *sync.WaitGroup) error {
	if err := e.addUser(tiffUser, attackNIT(300)); err != nil {
		return err
	}
	tok, err := e.tokenFor(tiffUser)
	if err != nil {
		return err
	}
	report := fixture.DecimalsAsStrings(fixture.Minimal(time.Now(), "CR-TIFF-1"))
	report["Documento Soporte"] = fixture.FileDto(entryBombTIFF(), "")
	body, err := json.Marshal(report)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: e.o.tiffConc}, Timeout: e.o.tiffTimeout}
	for range e.o.tiffConc {
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
					out.add("gave up")
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

// cpuAfter waits 10 s after the flood's clients have gone and says how
// much CPU the service used meanwhile.
func (e *environment) cpuAfter() string {
	before := e.cpu.sample()
	time.Sleep(10 * time.Second)
	service, _ := e.cpu.since(before)
	return fmt.Sprintf("In the 10 s after the flood's clients had gone the service used %s of CPU.\n", service.Round(10*time.Millisecond))
}

// entryBombTIFF is the TIFF of finding 4, as domain/filecheck's test
// builds it (work_test.go): four chained directories of 65,535 entries,
// ImageWidth and ImageLength first, every other an ASCII value of 8 bytes
// in the last 300 KiB.
func entryBombTIFF() []byte {
	o := binary.LittleEndian
	const dirs, n, text = 4, 65535, 300 << 10
	dirLen := 2 + 12*n + 4
	textAt := 8 + dirs*dirLen
	b := make([]byte, 0, textAt+text)
	b = append(b, "II*\x00"...)
	b = o.AppendUint32(b, 8)
	k := 0
	for d := 0; d < dirs; d++ {
		b = o.AppendUint16(b, n)
		for i := 0; i < n; i++ {
			switch {
			case d == 0 && i == 0:
				b = o.AppendUint32(o.AppendUint32(o.AppendUint16(o.AppendUint16(b, 256), 4), 1), 640)
			case d == 0 && i == 1:
				b = o.AppendUint32(o.AppendUint32(o.AppendUint16(o.AppendUint16(b, 257), 4), 1), 480)
			default:
				b = o.AppendUint32(o.AppendUint32(o.AppendUint16(o.AppendUint16(b, uint16(40000+i%20000)), 2), 8), uint32(textAt+(k*8)%text))
				k++
			}
		}
		next := uint32(0)
		if d+1 < dirs {
			next = uint32(len(b) + 4)
		}
		b = o.AppendUint32(b, next)
	}
	for len(b) < textAt+text {
		b = append(b, "value12\x00"...)
	}
	return b
}
