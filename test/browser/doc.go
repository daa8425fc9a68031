// Package browser holds the real browser test of /v1 (contract §8): a
// page served from one local origin, in headless Chromium driven by
// chromedp, gets a token and stores a report on the service at another,
// with fetch, as a partner's web page would. It is its own module, so
// that chromedp stays out of the service's go.mod; test/run runs it with
// go -C test/browser test.
package browser
