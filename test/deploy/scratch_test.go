package deploy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// scratchRoot is a throwaway root file system for running install steps
// as written, as root, without touching the machine: /usr is the host's,
// read-only (the Debian tools), /usr/local, /etc, /var and /tmp are the
// scratch root's own. Commands run in a private mount namespace
// (unshare), chrooted into Dir.
type scratchRoot struct {
	Dir   string // the root
	local string // what /usr/local is inside
	shims string // /opt/shims inside: stand-ins for commands that need a running systemd
}

// etcFiles are the host files the scratch /etc starts with: what useradd
// and name lookups read.
var etcFiles = []string{"passwd", "group", "shadow", "gshadow", "login.defs", "nsswitch.conf", "default/useradd", "hosts"}

func newScratchRoot(t *testing.T) *scratchRoot {
	t.Helper()
	needRoot(t, "unshare", "mount", "chroot", "setpriv", "useradd")
	base, err := os.MkdirTemp("", "disb-scratch-root")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	s := &scratchRoot{Dir: filepath.Join(base, "root"), local: filepath.Join(base, "usr-local")}
	s.shims = filepath.Join(s.Dir, "opt/shims")
	for _, d := range []string{"usr", "etc/systemd/system", "etc/profile.d", "var/lib", "tmp", "dev", "proc", "root", "opt/shims"} {
		if err := os.MkdirAll(filepath.Join(s.Dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"bin", "sbin", "lib", "share", "include", "src"} {
		if err := os.MkdirAll(filepath.Join(s.local, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The root must be traversable by the service's user, as / is.
	for _, d := range []string{base, s.Dir, filepath.Join(s.Dir, "tmp")} {
		mode := os.FileMode(0o755)
		if strings.HasSuffix(d, "tmp") {
			mode = 0o1777
		}
		if err := os.Chmod(d, mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []string{"bin", "sbin", "lib", "lib64"} {
		if _, err := os.Lstat("/" + l); err == nil {
			if err := os.Symlink("usr/"+l, filepath.Join(s.Dir, l)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, f := range etcFiles {
		data, err := os.ReadFile("/etc/" + f)
		if err != nil {
			continue
		}
		fi, _ := os.Stat("/etc/" + f)
		dst := filepath.Join(s.Dir, "etc", f)
		_ = os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := os.WriteFile(dst, data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// shim puts a stand-in for a command first on the PATH of the commands
// run inside: it logs its arguments to /tmp/NAME.log and exits 0.
func (s *scratchRoot) shim(t *testing.T, name string) {
	t.Helper()
	script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> /tmp/%s.log\n", name)
	if err := os.WriteFile(filepath.Join(s.shims, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// path is a path inside the root, seen from the host.
func (s *scratchRoot) path(p string) string { return filepath.Join(s.Dir, filepath.FromSlash(p)) }

// command returns a command that mounts the root in a private mount
// namespace and then runs script (bash) there, from the host: $R is the
// root, "inside CMD…" runs a command chrooted into it as root, and
// exec "${IN[@]}" CMD… does so in place of the script.
func (s *scratchRoot) command(script string) *exec.Cmd {
	setup := fmt.Sprintf(`set -euo pipefail
R=%q
mount --bind /usr "$R/usr"
mount -o remount,bind,ro "$R/usr"
mount --bind %q "$R/usr/local"
mount --rbind /dev "$R/dev"
mount -t proc proc "$R/proc"
IN=(chroot "$R" /usr/bin/env -i PATH=/opt/shims:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin HOME=/root)
inside() { "${IN[@]}" "$@"; }
`, s.Dir, s.local)
	return exec.Command("unshare", "--mount", "--propagation", "private", "bash", "-c", setup+script)
}
