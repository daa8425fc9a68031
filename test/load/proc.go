package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// procStatus reads a kB field of /proc/PID/status, in bytes.
func procStatus(pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, field+":") {
			f := strings.Fields(line)
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n << 10
		}
	}
	return 0
}

// resetPeak resets the process's peak RSS (VmHWM), Linux ≥ 4.0.
func resetPeak(pid int) { _ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) }

// procName is the command name of pid (/proc/PID/comm), to show in the
// results which process the database column measured.
func procName(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(data))
}

// clockTicks is the unit of utime and stime in /proc/PID/stat (USER_HZ),
// asked of getconf CLK_TCK; Linux reports 100 on every architecture, which
// is the fallback. The source is said in the results.
func clockTicks() (hz int64, source string) {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); err == nil && n > 0 {
			return n, "getconf CLK_TCK"
		}
	}
	return 100, "assumed: getconf CLK_TCK failed"
}

// cpuTime is the CPU time pid has used, user and system, all its threads
// (utime + stime, fields 14 and 15 of /proc/PID/stat; children excluded).
func cpuTime(pid int, hz int64) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces
	// and parentheses itself: count fields after the last ')'.
	at := bytes.LastIndexByte(data, ')')
	if at < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(data[at+1:])) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	utime, err1 := strconv.ParseInt(f[14-3], 10, 64)
	stime, err2 := strconv.ParseInt(f[15-3], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q, stime %q", pid, f[11], f[12])
	}
	return time.Duration(utime+stime) * time.Second / time.Duration(hz), nil
}

// cpuMeter samples the CPU time of the service and, when its PID is known,
// of the database server, around each run.
type cpuMeter struct {
	hz       int64
	source   string
	services []int // every replica's process
	dbID     int   // 0: unknown (SQLite runs inside the service)
}

// cpuSample is one reading of both processes.
type cpuSample struct{ service, db time.Duration }

func (m *cpuMeter) sample() cpuSample {
	var s cpuSample
	for _, pid := range m.services {
		t, _ := cpuTime(pid, m.hz)
		s.service += t
	}
	if m.dbID > 0 {
		s.db, _ = cpuTime(m.dbID, m.hz)
	}
	return s
}

// since returns the CPU time each process used from s to now.
func (m *cpuMeter) since(s cpuSample) (service, db time.Duration) {
	now := m.sample()
	return now.service - s.service, now.db - s.db
}

// loadAverage is the one-minute load average, to show in the results how
// busy the machine was when the run began.
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return -1
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
