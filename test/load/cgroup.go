package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// memCgroup is a memory cgroup of the tool's own, below the one it runs
// in, with a hard limit (-mem-max): the service started in it is killed
// by the kernel past the limit, as a container's is. It is the load
// tool's copy of test/memcgroup_test.go's (a test file, not importable).
type memCgroup struct {
	dir string
	v2  bool
}

// newMemCgroup makes the cgroup with limit bytes, or says why the machine
// does not allow it.
func newMemCgroup(limit int64) (*memCgroup, error) {
	own, v2, err := ownMemoryCgroup()
	if err != nil {
		return nil, err
	}
	c := &memCgroup{dir: filepath.Join(own, fmt.Sprintf("disb-load-%d", os.Getpid())), v2: v2}
	if v2 {
		if err := os.WriteFile(filepath.Join(own, "cgroup.subtree_control"), []byte("+memory"), 0); err != nil {
			return nil, fmt.Errorf("cgroup v2: cannot enable memory for children of %s: %v", own, err)
		}
	}
	if err := os.Mkdir(c.dir, 0o755); err != nil {
		return nil, fmt.Errorf("cgroup: %v", err)
	}
	if err := os.WriteFile(filepath.Join(c.dir, c.file("memory.limit_in_bytes", "memory.max")), []byte(strconv.FormatInt(limit, 10)), 0); err != nil {
		c.remove()
		return nil, fmt.Errorf("cgroup: set the limit: %v", err)
	}
	if v2 {
		_ = os.WriteFile(filepath.Join(c.dir, "memory.swap.max"), []byte("0"), 0)
	} else {
		_ = os.WriteFile(filepath.Join(c.dir, "memory.memsw.limit_in_bytes"), []byte(strconv.FormatInt(limit, 10)), 0)
	}
	return c, nil
}

// ownMemoryCgroup is the directory of this process's memory cgroup.
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

// wrap writes, in dir, a script that moves itself into the cgroup and
// then runs bin with its arguments, and returns its path.
func (c *memCgroup) wrap(dir, bin string) (string, error) {
	script := filepath.Join(dir, "in-cgroup")
	body := fmt.Sprintf("#!/bin/sh\necho $$ > %q || exit 97\nexec %q \"$@\"\n", filepath.Join(c.dir, "cgroup.procs"), bin)
	return script, os.WriteFile(script, []byte(body), 0o755)
}

// peak is the cgroup's highest charge, in bytes (0 when the kernel does
// not keep it).
func (c *memCgroup) peak() int64 {
	b, _ := os.ReadFile(filepath.Join(c.dir, c.file("memory.max_usage_in_bytes", "memory.peak")))
	n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n
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

// remove removes the cgroup once nothing runs in it.
func (c *memCgroup) remove() { _ = os.Remove(c.dir) }

// parseSize reads 1GiB, 768MiB, 512KiB or a number of bytes.
func parseSize(s string) (int64, error) {
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"", 0}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return 0, fmt.Errorf("%q: want a size such as 1GiB, 768MiB or a number of bytes", s)
			}
			return n << u.shift, nil
		}
	}
	return 0, fmt.Errorf("%q: want a size", s)
}
