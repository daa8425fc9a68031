package deploy

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// There is no Docker engine here. A container of deploy/Dockerfile is
// emulated by what it is to the service: a root holding only the static
// binary and the image's /data (owned by 65532), the image's ENV, WORKDIR
// / and USER 65532, and the volumes mounted over it.

// image is what the tests read of deploy/Dockerfile's final stage.
type image struct {
	env     []string // KEY=value
	volumes []string
	user    string
	cmd     string
}

func readDockerfile(t *testing.T) image {
	t.Helper()
	data, err := os.ReadFile(repoPath("deploy/Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	final := text[strings.LastIndex(text, "\nFROM "):]
	for _, want := range []string{"USER 65532:65532", "WORKDIR /\n", "COPY --from=build --chown=65532:65532 /out/data /data",
		"mkdir -p /out/data/uploads /out/data/keys", `ENTRYPOINT ["/usr/local/bin/disbursementd"]`, "CGO_ENABLED=0"} {
		if !strings.Contains(text, want) {
			t.Fatalf("deploy/Dockerfile no longer has %q, which this emulation of its image assumes", want)
		}
	}
	var img image
	sc := bufio.NewScanner(strings.NewReader(final))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "ENV":
			img.env = append(img.env, f[1:]...)
		case "VOLUME":
			for _, v := range regexp.MustCompile(`"([^"]+)"`).FindAllStringSubmatch(sc.Text(), -1) {
				img.volumes = append(img.volumes, v[1])
			}
		case "USER":
			img.user = f[1]
		case "CMD":
			img.cmd = strings.Trim(f[1], `["]`)
		}
	}
	return img
}

// container is one emulated container's root.
type container struct{ root string }

func newContainer(t *testing.T) container {
	t.Helper()
	needRoot(t, "unshare", "mount", "chroot")
	base, err := os.MkdirTemp("", "disb-container")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	c := container{root: filepath.Join(base, "root")}
	for _, d := range []string{"usr/local/bin", "data/uploads", "data/keys", "keys", "tmp"} {
		if err := os.MkdirAll(filepath.Join(c.root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"data", "data/uploads", "data/keys"} {
		if err := os.Chown(filepath.Join(c.root, d), 65532, 65532); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Chmod(filepath.Join(c.root, "tmp"), 0o1777)
	_ = os.Chmod(base, 0o755)
	copyFile(t, binary(t), filepath.Join(c.root, "usr/local/bin/disbursementd"), 0o755)
	return c
}

// run returns a command that mounts binds (host path → path in the
// container, ":ro" for read-only) and runs the binary with args as user
// (uid:gid), with exactly env.
func (c container) run(binds map[string]string, user string, env []string, args ...string) *exec.Cmd {
	var b strings.Builder
	b.WriteString("set -euo pipefail\n")
	for from, to := range binds {
		ro := strings.HasSuffix(to, ":ro")
		to = filepath.Join(c.root, strings.TrimSuffix(to, ":ro"))
		fmt.Fprintf(&b, "mount --bind %s %s\n", shellQuote(from), shellQuote(to))
		if ro {
			fmt.Fprintf(&b, "mount -o remount,bind,ro %s\n", shellQuote(to))
		}
	}
	quoted := make([]string, 0, len(env)+len(args))
	for _, e := range env {
		quoted = append(quoted, shellQuote(e))
	}
	fmt.Fprintf(&b, "cd %s\nexec /usr/bin/env -i %s /usr/sbin/chroot --userspec=%s --groups=%s %s /usr/local/bin/disbursementd",
		shellQuote(c.root), strings.Join(quoted, " "), user, strings.SplitN(user, ":", 2)[1], shellQuote(c.root))
	for _, a := range args {
		b.WriteString(" " + shellQuote(a))
	}
	return exec.Command("unshare", "--mount", "--propagation", "private", "bash", "-c", b.String())
}

// serveUntilReady starts the container's service and returns its log
// once path answers 200, and a function that stops it (else it stops at
// cleanup).
func serveUntilReady(t *testing.T, cmd *exec.Cmd, addr, path string) (*lockedBuffer, func()) {
	t.Helper()
	exited, out := started(t, cmd)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := waitReady(ctx, "http://"+addr+path, exited); err != nil {
		t.Fatalf("the container's service did not answer %s: %v\n%s", path, err, out.String())
	}
	return out, func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			t.Fatal("the service did not stop on SIGINT")
		}
	}
}

// TestDockerImageKeepsStateInItsVolume: a plain docker run of the image
// on its embedded default (SQLite) keeps the database, the uploads and
// the signing key in the image's volumes; recreated on the same volume,
// the container has its users and signs with the same key. The image
// used to declare only /data/uploads, so a recreate lost the database and
// the key.
func TestDockerImageKeepsStateInItsVolume(t *testing.T) {
	img := readDockerfile(t)
	if len(img.volumes) == 0 {
		t.Fatal("the image declares no volume")
	}
	volumes := t.TempDir()
	first := newContainer(t)
	addr := freeAddr(t)
	env := append(append([]string{}, img.env...), "DISB_HTTP_ADDR="+addr, "DISB_AUTH_BCRYPT_COST=10")

	add := first.run(nil, img.user, env, "users", "add", "--user", "acme", "--nit", "900123456-8")
	add.Stdin = strings.NewReader("a long partner password\n")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("users add in the container: %v\n%s", err, out)
	}
	out, stop := serveUntilReady(t, first.run(nil, img.user, env, img.cmd), addr, "/readyz")
	kid := awaitLog(out, "listening", "kid")
	stop()

	// What the service wrote must all be in a volume: keep the volumes,
	// drop the rest of the container.
	var outside []string
	_ = filepath.Walk(first.root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel := "/" + strings.TrimPrefix(p, first.root+"/")
		inVolume := rel == "/usr/local/bin/disbursementd"
		for _, v := range img.volumes {
			inVolume = inVolume || strings.HasPrefix(rel, strings.TrimSuffix(v, "/")+"/")
		}
		if !inVolume {
			outside = append(outside, rel)
		}
		return nil
	})
	sort.Strings(outside)
	if len(outside) > 0 {
		t.Errorf("the service wrote outside the image's volumes %v (lost when the container is recreated): %v", img.volumes, outside)
	}
	binds := map[string]string{}
	for i, v := range img.volumes {
		keep := filepath.Join(volumes, fmt.Sprint(i))
		if err := os.Rename(filepath.Join(first.root, v), keep); err != nil {
			t.Fatal(err)
		}
		binds[keep] = v
	}

	second := newContainer(t)
	list := second.run(binds, img.user, env, "users", "list")
	if out, err := list.CombinedOutput(); err != nil || !strings.Contains(string(out), "acme") {
		t.Errorf("the recreated container lost its users: %v\n%s", err, out)
	}
	out, _ = serveUntilReady(t, second.run(binds, img.user, env, img.cmd), addr, "/readyz")
	if again := awaitLog(out, "listening", "kid"); again != kid || kid == "" {
		t.Errorf("the recreated container signs with key %q; it signed with %q", again, kid)
	}
}
