package arch

import (
	"os/exec"
	"strings"
	"testing"
)

// TestMetricsHaveTheirOwnRing: the service's metrics are an adapter of
// their own (adapters/metrics; issue 34). It alone imports the Prometheus
// client: it owns the registry, every series and the /metrics handler.
// The HTTP adapter reports through an interface it declares
// (httpapi.Meter) and serves the handler it is given, so it owns no
// registry; the sweep, the upstream login and the webhook deliveries
// report to adapters/metrics, not through the HTTP adapter, which no
// package but the composition root imports.
func TestMetricsHaveTheirOwnRing(t *testing.T) {
	const mod = "github.com/lender/disbursementd/"
	const prom = "github.com/prometheus/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}",
		"../../adapters/...", "../../cmd/...", "../../ports/...", "../../domain/...", "../../config/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	registry, httpSeen := false, false
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := f[0]
		httpSeen = httpSeen || pkg == mod+"adapters/httpapi"
		for _, imp := range f[1:] {
			switch {
			case strings.HasPrefix(imp, prom) && pkg == mod+"adapters/metrics":
				registry = true
			case strings.HasPrefix(imp, prom):
				t.Errorf("%s imports %s: the service's series and registry are adapters/metrics'", pkg, imp)
			case imp == mod+"adapters/httpapi" && pkg != mod+"cmd/disbursementd/app":
				t.Errorf("%s imports the HTTP adapter: only the composition root wires it; metrics are adapters/metrics'", pkg)
			}
		}
	}
	if !registry || !httpSeen {
		t.Fatalf("adapters/metrics imports no Prometheus package (%v) or httpapi was not listed (%v): the check would prove nothing", registry, httpSeen)
	}
}
