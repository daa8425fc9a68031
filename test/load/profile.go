package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// profiled is one level run once more, apart from the measured runs, with
// a CPU and an allocation profile taken from the service while it works.
type profiled struct {
	workload string
	conc     int
	seconds  int
	during   result // the extra run: profiling costs a little, so it is not in the table
	files    []string
	tops     []top
}

// top is the text of one `go tool pprof -top` listing.
type top struct{ title, text string }

// profileConc is the concurrency of w's profiled run: -profile-c when w
// runs at it, else the highest of w's levels below it, else w's lowest.
func profileConc(levels []int, want int) int {
	if len(levels) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(levels))
	best := s[0]
	for _, c := range s {
		if c <= want {
			best = c
		}
	}
	return best
}

// profile runs w at concurrency c for -profile-time plus two seconds, and
// fetches /debug/pprof/profile and /debug/pprof/allocs (a delta over the
// same seconds) from the service after the first second, so that neither
// covers the ramp-up or the tail. It writes both to -profile and keeps
// their 15 top functions by flat and by cumulative cost.
func (e *environment) profile(w workload, c int) (profiled, error) {
	secs := max(1, int(e.o.profileTime/time.Second))
	w.duration = time.Duration(secs+2) * time.Second
	p := profiled{workload: w.name, conc: c, seconds: secs}
	base := filepath.Join(e.o.profileDir, fmt.Sprintf("%s-%s-c%d", e.o.store, w.name, c))
	cpuFile, allocFile := base+"-cpu.pb.gz", base+"-allocs.pb.gz"
	fetches := []struct{ path, file string }{{"profile", cpuFile}, {"allocs", allocFile}}
	traceFile := base + "-trace.out"
	if e.o.profileTrace {
		fetches = append(fetches, struct{ path, file string }{"trace", traceFile})
	}
	done := make(chan error, len(fetches))
	for _, f := range fetches {
		go func() {
			time.Sleep(time.Second)
			done <- fetchProfile(fmt.Sprintf("%s/debug/pprof/%s?seconds=%d", e.pprofURL, f.path, secs), f.file)
		}()
	}
	r, err := e.attackService(w, c, 0)
	for range fetches {
		err = errors.Join(err, <-done)
	}
	if err != nil {
		return p, err
	}
	p.during = r
	for _, f := range fetches {
		p.files = append(p.files, f.file)
	}
	for _, t := range []struct {
		title, file string
		args        []string
	}{
		{"CPU, by flat time", cpuFile, nil},
		{"CPU, by cumulative time", cpuFile, []string{"-cum"}},
		{"allocated bytes, by flat", allocFile, []string{"-sample_index=alloc_space"}},
		{"allocated bytes, by cumulative", allocFile, []string{"-sample_index=alloc_space", "-cum"}},
	} {
		text, err := e.pprofTop(t.file, t.args...)
		if err != nil {
			return p, err
		}
		p.tops = append(p.tops, top{title: t.title, text: text})
	}
	if e.o.profileTrace {
		for _, kind := range []string{"sync", "syscall", "sched"} {
			text, err := e.traceTop(traceFile, kind)
			if err != nil {
				return p, err
			}
			p.tops = append(p.tops, top{title: "goroutines waiting (" + kind + "), by cumulative time, from the trace", text: text})
			p.files = append(p.files, traceKindFile(traceFile, kind))
		}
	}
	return p, nil
}

// traceKindFile is where traceTop keeps the trace's profile of one kind.
func traceKindFile(traceFile, kind string) string {
	return strings.TrimSuffix(traceFile, ".out") + "-" + kind + ".pprof"
}

// traceTop is where the trace's goroutines waited, of one kind (go tool
// trace -pprof=KIND), as pprofTop's listing by cumulative time.
func (e *environment) traceTop(traceFile, kind string) (string, error) {
	out := traceKindFile(traceFile, kind)
	cmd := exec.Command("go", "tool", "trace", "-pprof="+kind, traceFile)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go tool trace -pprof=%s: %w\n%s", kind, err, stderr.String())
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return "", err
	}
	return e.pprofTop(out, "-cum")
}

// fetchProfile saves one pprof answer to path.
func fetchProfile(url, path string) error {
	resp, err := (&http.Client{Timeout: 5 * time.Minute}).Get(url)
	if err != nil {
		return fmt.Errorf("pprof: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("pprof %s: HTTP %d: %s", url, resp.StatusCode, strings.TrimSpace(string(msg)))
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, resp.Body)
	return errors.Join(err, f.Close())
}

// pprofTop is `go tool pprof -top` of the 15 heaviest functions, against
// the binary that was profiled.
func (e *environment) pprofTop(file string, args ...string) (string, error) {
	cmd := exec.Command("go", append(append([]string{"tool", "pprof", "-top", "-nodecount=15"}, args...), e.bin, file)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go tool pprof %s: %w\n%s", file, err, stderr.String())
	}
	return strings.TrimRight(string(out), "\n"), nil
}
