package docs

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/testkit"
)

// fencedShell returns the first ```sh block of a document that contains
// marker.
func fencedShell(t *testing.T, path, marker string) string {
	t.Helper()
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(repoFile(t, path), -1) {
		if strings.Contains(m[1], marker) {
			return m[1]
		}
	}
	t.Fatalf("%s: no ```sh block containing %q", path, marker)
	return ""
}

// TestDocsMySQLS3Recipe runs the operator guide's MariaDB + S3 recipe as
// it is written, from the repository's root, as a new operator pastes it
// into a terminal: it must end with the service serving on both (ready,
// and a token for the user it added), and Ctrl-C must stop it. Only the
// listen address comes from the environment (a free port instead of
// 8080); after the block, the test runs what its last comment says
// (stop_s3; stop_mariadb).
func TestDocsMySQLS3Recipe(t *testing.T) {
	t.Parallel()
	_, errDB := exec.LookPath("mariadbd")
	if _, err := os.Stat("/usr/sbin/mariadbd"); err == nil {
		errDB = nil
	}
	if errDB != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and mariadbd is not installed (.ci/run installs it)")
		}
		t.Skip("mariadbd is not installed (Debian: mariadb-server)")
	}
	block := fencedShell(t, "docs/operator-guide.md", "start_mariadb")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()

	script := "trap 'stop_s3; stop_mariadb' EXIT\nset -e\n" + block
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "DISB_HTTP_ADDR="+addr, "DISB_AUTH_BCRYPT_COST=10")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own process group, as a terminal's job
	out := &testkit.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		select {
		case <-exited:
		default:
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		if t.Failed() {
			t.Logf("the recipe's output:\n%s", out.String())
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a cold versitygw build takes minutes
	defer cancel()
	if err := pollReady(ctx, "http://"+addr+"/readyz", exited, out); err != nil {
		t.Fatalf("the recipe did not end with a ready service: %v", err)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/partner_api.php",
		strings.NewReader(`{"user":"acme","password":"a long partner password"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if resp.StatusCode != 200 || tok.AccessToken == "" {
		t.Errorf("the recipe's user gets no token: %s", resp.Status)
	}
	for i := 0; i < 100 && !strings.Contains(out.String(), `"msg":"listening"`); i++ {
		time.Sleep(50 * time.Millisecond) // the probes may answer just before that line is written
	}
	for _, want := range []string{`"store":"mysql"`, `"uploads":"s3"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the service does not run on %s", want)
		}
	}

	// Ctrl-C: SIGINT to the foreground job's process group.
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("after Ctrl-C the recipe exited with %v", err)
		}
		exited <- err
	case <-time.After(2 * time.Minute):
		t.Error("Ctrl-C did not stop the service")
	}
	if !strings.Contains(out.String(), `"msg":"stopped"`) {
		t.Error("the service did not stop cleanly on Ctrl-C")
	}
}

// pollReady polls url until 200, the recipe ending, ctx, or a minute
// after the service said it listens (it then waits only for its
// database and bucket).
func pollReady(ctx context.Context, url string, exited chan error, out *testkit.SyncBuffer) error {
	var listening time.Time
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		if listening.IsZero() && strings.Contains(out.String(), `"msg":"listening"`) {
			listening = time.Now()
		}
		if !listening.IsZero() && time.Since(listening) > time.Minute {
			return fmt.Errorf("listening but not ready: %v", err)
		}
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("the recipe ended: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// TestDocsGuideLinksResolve: every link to a section of the operator
// guide (#anchor), from the guide itself, names a heading that exists.
func TestDocsGuideLinksResolve(t *testing.T) {
	guide := repoFile(t, "docs/operator-guide.md")
	anchors := map[string]bool{}
	for _, h := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllStringSubmatch(guide, -1) {
		a := strings.ToLower(h[1])
		a = regexp.MustCompile("[^a-z0-9 _-]").ReplaceAllString(a, "")
		anchors[strings.ReplaceAll(a, " ", "-")] = true
	}
	links := regexp.MustCompile(`\]\(#([^)]+)\)`).FindAllStringSubmatch(guide, -1)
	if len(links) < 10 {
		t.Fatalf("only %d section links: the check would prove nothing", len(links))
	}
	for _, l := range links {
		if !anchors[l[1]] {
			t.Errorf("docs/operator-guide.md links to #%s; no heading makes that anchor", l[1])
		}
	}
}

// setVar replaces the block's line NAME=… with NAME=value.
func setVar(t *testing.T, block, name, value string) string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + name + `=.*$`)
	if !re.MatchString(block) {
		t.Fatalf("the block sets no %s:\n%s", name, block)
	}
	return re.ReplaceAllLiteralString(block, name+"="+shellQuote(value))
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// cliCode runs a command of the binary and returns its exit code.
func cliCode(t *testing.T, d *drill, args ...string) (int, string) {
	t.Helper()
	out, err := testkit.CLI(t, d.dir, d.env, "", args...)
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out
	}
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return 0, out
}

// requireTool fails (CI) or skips when a command a block runs is missing.
func requireTool(t *testing.T, tool, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %s is not installed (.ci/run installs %s)", tool, pkg)
		}
		t.Skipf("%s is not installed (Debian: %s)", tool, pkg)
	}
}
