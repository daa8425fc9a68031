package process

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// memCgroup is a memory cgroup of the test's own, below the one the test
// runs in, with a hard limit: a process put in it is killed by the kernel
// past the limit, as a container's is.
type memCgroup struct {
	dir string
	v2  bool
}

// newMemCgroup makes a memory cgroup with limit bytes, on cgroup v1 (the
// memory hierarchy) or v2, or returns why the machine does not allow it.
// It is removed when the test ends.
func newMemCgroup(t *testing.T, limit int64) (*memCgroup, error) {
	own, v2, err := ownMemoryCgroup()
	if err != nil {
		return nil, err
	}
	c := &memCgroup{dir: filepath.Join(own, fmt.Sprintf("disb-memtest-%d", os.Getpid())), v2: v2}
	if v2 {
		// A v2 child gets the memory controller only when the parent
		// hands it down; a parent that holds processes (other than the
		// root) cannot, and this fails.
		if err := os.WriteFile(filepath.Join(own, "cgroup.subtree_control"), []byte("+memory"), 0); err != nil {
			return nil, fmt.Errorf("cgroup v2: cannot enable memory for children of %s: %v", own, err)
		}
	}
	if err := os.Mkdir(c.dir, 0o755); err != nil {
		return nil, fmt.Errorf("cgroup: %v", err)
	}
	t.Cleanup(func() { _ = os.Remove(c.dir) }) // after the process in it is gone (cleanups run last first)
	if err := os.WriteFile(filepath.Join(c.dir, c.file("memory.limit_in_bytes", "memory.max")), []byte(strconv.FormatInt(limit, 10)), 0); err != nil {
		return nil, fmt.Errorf("cgroup: set the limit: %v", err)
	}
	if !c.v2 {
		// No swap either (memsw exists only when swap accounting is on).
		_ = os.WriteFile(filepath.Join(c.dir, "memory.memsw.limit_in_bytes"), []byte(strconv.FormatInt(limit, 10)), 0)
	}
	return c, nil
}

// ownMemoryCgroup is the directory of the memory cgroup this process is
// in, and whether it is cgroup v2.
func ownMemoryCgroup() (string, bool, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	var v2path string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			if ctl == "memory" {
				return filepath.Join("/sys/fs/cgroup/memory", parts[2]), false, nil
			}
		}
		if parts[0] == "0" && parts[1] == "" {
			v2path = parts[2]
		}
	}
	if v2path != "" {
		for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
			if ctl, err := os.ReadFile(filepath.Join(root, "cgroup.controllers")); err == nil && strings.Contains(string(ctl), "memory") {
				return filepath.Join(root, v2path), true, nil
			}
		}
	}
	return "", false, fmt.Errorf("no memory cgroup controller in /proc/self/cgroup")
}

func (c *memCgroup) file(v1, v2 string) string {
	if c.v2 {
		return v2
	}
	return v1
}

// wrap returns a script that moves itself into the cgroup and then runs
// bin with its arguments, so that everything bin allocates is counted.
func (c *memCgroup) wrap(t *testing.T, bin string) string {
	script := filepath.Join(t.TempDir(), "in-cgroup")
	body := fmt.Sprintf("#!/bin/sh\necho $$ > %q || exit 97\nexec %q \"$@\"\n", filepath.Join(c.dir, "cgroup.procs"), bin)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}

// usage is the cgroup's charge now, in bytes.
func (c *memCgroup) usage() int64 {
	return readInt(filepath.Join(c.dir, c.file("memory.usage_in_bytes", "memory.current")))
}

// peak is the cgroup's highest charge, in bytes (0 when the kernel does
// not keep it: v2 before 5.19).
func (c *memCgroup) peak() int64 {
	return readInt(filepath.Join(c.dir, c.file("memory.max_usage_in_bytes", "memory.peak")))
}

// ooms is how many processes the kernel killed for the cgroup's limit.
func (c *memCgroup) ooms() int64 {
	b, _ := os.ReadFile(filepath.Join(c.dir, c.file("memory.oom_control", "memory.events")))
	if m := regexp.MustCompile(`(?m)^oom_kill (\d+)$`).FindSubmatch(b); m != nil {
		n, _ := strconv.ParseInt(string(m[1]), 10, 64)
		return n
	}
	return 0
}

func readInt(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n
}

// procStatus reads a "VmRSS:   1234 kB" line of /proc/PID/status, in bytes.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(`(?m)^` + field + `:\s+(\d+) kB$`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n << 10
}
