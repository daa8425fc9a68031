package browser

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// seen is what the page's submit returns.
type seen struct {
	Origin       string         `json:"origin"`
	TokenStatus  int            `json:"tokenStatus"`
	CreateStatus int            `json:"createStatus"`
	Location     string         `json:"location"`
	Receipt      map[string]any `json:"receipt"`
	GetStatus    int            `json:"getStatus"`
	Detail       struct {
		ID     json.Number    `json:"id"`
		Fields map[string]any `json:"fields"`
	} `json:"detail"`
	ReplayStatus int    `json:"replayStatus"`
	Replayed     string `json:"replayed"`
	RequestID    string `json:"requestId"`
}

// TestBrowserCrossOrigin: headless Chromium, on a page of another origin,
// gets a token from POST /v1/token with fetch, stores a report, reads
// Location from the 201 (which only CORS's Expose-Headers lets a page
// read), GETs it there, and sees the replay's Idempotent-Replayed.
func TestBrowserCrossOrigin(t *testing.T) {
	chromium := findChromium(t)
	api := startService(t)
	page := httptest.NewServer(http.FileServer(http.Dir("testdata")))
	t.Cleanup(page.Close)

	ctx := browse(t, chromium)
	day := time.Now().UTC().Format(time.DateOnly)
	args, _ := json.Marshal([]string{api, partner, secret, "CR-2026-0200", day})
	if _, err := chromedp.Run(ctx, chromedp.Navigate(page.URL+"/partner.html")); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[seen]("submit(..."+string(args)+")", chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("the page's submit: %v", err)
	}
	if got.Origin != page.URL || got.Origin == api {
		t.Fatalf("the page ran at %q; want %q, another origin than the service's %q", got.Origin, page.URL, api)
	}
	if got.TokenStatus != 200 || got.CreateStatus != 201 {
		t.Fatalf("token %d, report %d; want 200, 201 (%+v)", got.TokenStatus, got.CreateStatus, got)
	}
	id, _ := got.Receipt["id"].(float64)
	if want := "/v1/reports/" + strconv.Itoa(int(id)); id < 1 || got.Location != want {
		t.Fatalf("Location as the page read it: %q; want %q (is Location exposed?)", got.Location, want)
	}
	if got.GetStatus != 200 || got.Detail.ID.String() != strconv.Itoa(int(id)) || got.Detail.Fields["Monto Aprobado"] != "14334900.55" {
		t.Errorf("GET %s from the page: %d, id %s, Monto Aprobado %v; want 200, %d, 14334900.55",
			got.Location, got.GetStatus, got.Detail.ID, got.Detail.Fields["Monto Aprobado"], int(id))
	}
	if got.ReplayStatus != 200 || got.Replayed != "true" || got.RequestID == "" {
		t.Errorf("the replay as the page saw it: %d, Idempotent-Replayed %q, X-Request-Id %q; want 200, true, an id",
			got.ReplayStatus, got.Replayed, got.RequestID)
	}
}

// findChromium returns Debian's chromium. Without it the test skips,
// except under CI=true, where .ci/run installs it.
func findChromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true and chromium is not installed (.ci/run installs it: apt-get install -y chromium)")
	}
	t.Skip("chromium is not installed (Debian: apt-get install chromium)")
	return ""
}

// browse starts headless Chromium with a fresh profile and the flags that
// keep it off the network it cannot reach here (background networking,
// component updates, sync, QUIC), and returns a tab's context.
func browse(t *testing.T, chromium string) context.Context {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox, // as root, as CI runs
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(ctx, chromedp.WithLogf(t.Logf))
	t.Cleanup(cancelTab)
	return ctx
}
