package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestComposeKeySetUpAsUID65532 runs the operator guide's key set-up for
// compose as written (as root, in a checkout), then starts the service as
// a compose replica would: as uid 65532, with the replica's environment
// and deploy/keys mounted read-only at /keys. The service must read the
// key keygen made (its kid in the listening line) and serve. Made the old
// way (keygen's 0700 directory, no chown) both replicas exited with
// "permission denied".
func TestComposeKeySetUpAsUID65532(t *testing.T) {
	needRoot(t, "bash")
	checkout, err := os.MkdirTemp("", "disb-checkout")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(checkout) })
	for _, d := range []string{checkout, filepath.Join(checkout, "deploy")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		_ = os.Chmod(d, 0o755)
	}
	copyFile(t, binary(t), filepath.Join(checkout, "disbursementd"), 0o755)

	// The block's lines up to the compose command, which needs Docker.
	block := fencedBlock(t, "docs/operator-guide.md", "keygen --out deploy/keys")
	var steps []string
	for _, line := range strings.Split(block, "\n") {
		if strings.HasPrefix(line, "docker ") {
			break
		}
		steps = append(steps, line)
	}
	path := os.Getenv("PATH")
	if _, err := exec.LookPath("sudo"); err != nil {
		// Root needs no sudo; where it is not installed, a stand-in runs
		// the command as it is.
		shims := t.TempDir()
		if err := os.WriteFile(filepath.Join(shims, "sudo"), []byte("#!/bin/sh\nexec \"$@\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		path = shims + ":" + path
	}
	setup := exec.Command("bash", "-euo", "pipefail", "-c", strings.Join(steps, "\n"))
	setup.Dir, setup.Env = checkout, append(os.Environ(), "PATH="+path)
	out, err := setup.CombinedOutput()
	if err != nil {
		t.Fatalf("the guide's key set-up failed as written: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`\(kid ([^)]+)\)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("keygen printed no kid:\n%s", out)
	}
	kid := string(m[1])

	p := loadCompose(t)
	replica, err := p.GetService("disbursementd-a")
	if err != nil {
		t.Fatal(err)
	}
	keysTarget := ""
	for _, v := range replica.Volumes {
		if strings.HasSuffix(v.Source, "/deploy/keys") {
			keysTarget = v.Target
		}
	}
	addr := freeAddr(t)
	var env []string
	for k, v := range composeEnv(replica) {
		env = append(env, k+"="+v)
	}
	// The port compose publishes; the database and the bucket are not
	// here, so the service serves but is not ready (it keeps retrying).
	env = append(env, "DISB_HTTP_ADDR="+addr)
	img := readDockerfile(t)
	c := newContainer(t)
	// Compose mounts each secret file at /run/secrets/<name>, as the host
	// file is (the examples are world-readable; a real one is chowned to
	// 65532 as the key is).
	for target, host := range secretFiles(t, p, replica) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(c.root, target)), 0o755); err != nil {
			t.Fatal(err)
		}
		copyFile(t, host, filepath.Join(c.root, target), 0o444)
	}
	binds := map[string]string{filepath.Join(checkout, "deploy/keys"): keysTarget + ":ro"}
	logs, _ := serveUntilReady(t, c.run(binds, img.user, env, img.cmd), addr, "/healthz")
	if got := awaitLog(logs, "listening", "kid"); got != kid {
		t.Errorf("the replica signs with %q; keygen made %q\n%s", got, kid, logs.String())
	}
}
