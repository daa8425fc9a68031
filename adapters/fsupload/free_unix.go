//go:build linux || darwin || freebsd

package fsupload

import (
	"os"

	"golang.org/x/sys/unix"
)

// freeBytes returns the space an unprivileged writer can still use on
// the file system that holds dir.
func freeBytes(dir *os.File) (int64, error) {
	raw, err := dir.SyscallConn()
	if err != nil {
		return 0, err
	}
	var st unix.Statfs_t
	var serr error
	if err := raw.Control(func(fd uintptr) { serr = unix.Fstatfs(int(fd), &st) }); err != nil {
		return 0, err
	}
	if serr != nil {
		return 0, serr
	}
	free := uint64(st.Bavail) * uint64(st.Bsize)
	if free > 1<<62 {
		return 1 << 62, nil
	}
	return int64(free), nil
}
