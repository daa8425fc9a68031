package deploy

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"
)

// partnerPaths splits the OpenAPI document's paths into those the partner
// guide names (the partner's routes: an Ingress must route each) and the
// others (the operator's: metrics, probes, the key set, the internal
// login; an Ingress must route none). A templated path stands for a
// concrete one, its parameters filled with 1.
func partnerPaths(t *testing.T) (partner, operator []string) {
	t.Helper()
	doc, err := os.ReadFile(repoPath("cmd/disbursementd/app/openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	guide, err := os.ReadFile(repoPath("docs/partner-guide.md"))
	if err != nil {
		t.Fatal(err)
	}
	var api struct{ Paths map[string]any }
	if err := yaml.Unmarshal(doc, &api); err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	for p := range api.Paths {
		concrete := param.ReplaceAllString(p, "1")
		// Named as written in the guide, followed by no further path
		// character (so /v1/reports, named everywhere, does not make
		// /v1/reports/validate a partner route on its own).
		named := regexp.MustCompile(regexp.QuoteMeta(p) + `([^A-Za-z0-9_./{-]|$)`).Match(guide)
		if named {
			partner = append(partner, concrete)
		} else {
			operator = append(operator, concrete)
		}
	}
	slices.Sort(partner)
	slices.Sort(operator)
	if len(partner) == 0 || len(operator) == 0 {
		t.Fatalf("partner routes %v, operator routes %v: the guide or the document moved", partner, operator)
	}
	return partner, operator
}

// ingressRoutes reports whether one of the Ingress's paths takes path, as
// the Ingress API defines matching: Exact is the whole path, Prefix whole
// path elements (/v1 takes /v1 and /v1/token, not /v1client).
func ingressRoutes(t *testing.T, ing *networkingv1.Ingress, path string) bool {
	t.Helper()
	for _, rule := range ing.Spec.Rules {
		for _, p := range rule.HTTP.Paths {
			switch {
			case p.PathType == nil:
				t.Errorf("Ingress %s path %s has no pathType", ing.Name, p.Path)
			case *p.PathType == networkingv1.PathTypeExact:
				if p.Path == path {
					return true
				}
			case *p.PathType == networkingv1.PathTypePrefix:
				prefix := strings.TrimSuffix(p.Path, "/")
				if prefix == "" || path == prefix || strings.HasPrefix(path, prefix+"/") {
					return true
				}
			default:
				t.Errorf("Ingress %s path %s is %s: its matching is the controller's, not the API's", ing.Name, p.Path, *p.PathType)
			}
		}
	}
	return false
}

// annotationSeconds reads an nginx timeout annotation (whole seconds).
func annotationSeconds(t *testing.T, ing *networkingv1.Ingress, key string) (time.Duration, bool) {
	t.Helper()
	v, ok := ing.Annotations[key]
	if !ok {
		t.Errorf("Ingress %s has no %s (nginx's default is 60 s)", ing.Name, key)
		return 0, false
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Errorf("Ingress %s: %s %q is not whole seconds", ing.Name, key, v)
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}

// checkIngress: TLS with a Secret, to the partner-facing Service's port;
// every route the partner guide names is routed and no operator route is;
// nginx waits for an answer longer than a report may take (the operator
// guide's "longer than http.report_timeout", plus the read-back a commit of
// unknown outcome takes) and passes a body of http.max_body_bytes.
func checkIngress(t *testing.T, r route, ing *networkingv1.Ingress, c *config.Config, partner, operator []string) {
	t.Helper()
	if len(ing.Spec.TLS) == 0 || ing.Spec.TLS[0].SecretName == "" {
		t.Errorf("Ingress %s has no TLS", ing.Name)
	}
	svc := partnerService(t, r)
	for _, rule := range ing.Spec.Rules {
		for _, p := range rule.HTTP.Paths {
			be := p.Backend.Service
			if be == nil || be.Name != svc.Name || be.Port.Name != svc.Spec.Ports[0].Name {
				t.Errorf("Ingress %s path %s goes to %+v, not the Service", ing.Name, p.Path, be)
			}
		}
	}
	for _, p := range partner {
		if !ingressRoutes(t, ing, p) {
			t.Errorf("Ingress %s does not route %s, which the partner guide uses", ing.Name, p)
		}
	}
	for _, p := range operator {
		if ingressRoutes(t, ing, p) {
			t.Errorf("Ingress %s routes %s, which is for the inside (not in the partner guide)", ing.Name, p)
		}
	}
	longest := c.HTTP.ReportTimeout + c.Store.ReadbackTimeout
	for _, key := range []string{"nginx.ingress.kubernetes.io/proxy-read-timeout", "nginx.ingress.kubernetes.io/proxy-send-timeout"} {
		if d, ok := annotationSeconds(t, ing, key); ok && d <= longest {
			t.Errorf("Ingress %s: %s is %s; a report may take %s (http.report_timeout + store.readback_timeout)", ing.Name, key, d, longest)
		}
	}
	body := ing.Annotations["nginx.ingress.kubernetes.io/proxy-body-size"]
	if mib, err := strconv.Atoi(strings.TrimSuffix(body, "m")); err != nil || !strings.HasSuffix(body, "m") || int64(mib)<<20 < int64(c.HTTP.MaxBodyBytes) {
		t.Errorf("Ingress %s: proxy-body-size %q is below http.max_body_bytes (%d bytes)", ing.Name, body, c.HTTP.MaxBodyBytes)
	}
}
