package docs

import (
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
)

// operatorPaths are the routes a partner's client never calls: the
// built-in login, the probes and the metrics.
var operatorPaths = []string{"/auth/login", "/healthz", "/readyz", "/metrics"}

// TestOpenAPIOperatorTag: every operation of the operator's routes has
// the tag operator, and no partner operation has it, so a generator that
// leaves out that tag (or takes only v1) makes a partner's client of the
// partner's operations alone; the tag is declared with its description.
func TestOpenAPIOperatorTag(t *testing.T) {
	var doc struct {
		Tags  []struct{ Name string }
		Paths map[string]map[string]struct {
			Tags []string
		}
	}
	if err := yaml.Unmarshal(app.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(doc.Tags, func(tg struct{ Name string }) bool { return tg.Name == "operator" }) {
		t.Fatal("the document declares no tag operator")
	}
	tagged := 0
	for path, ops := range doc.Paths {
		operator := slices.Contains(operatorPaths, path)
		for method, op := range ops {
			has := slices.Contains(op.Tags, "operator")
			switch {
			case operator && !has:
				t.Errorf("%s %s: not tagged operator", strings.ToUpper(method), path)
			case !operator && has:
				t.Errorf("%s %s: a partner's operation tagged operator", strings.ToUpper(method), path)
			case strings.HasPrefix(path, "/v1/") && !slices.Contains(op.Tags, "v1"):
				t.Errorf("%s %s: not tagged v1", strings.ToUpper(method), path)
			}
			if has {
				tagged++
			}
		}
	}
	if tagged < len(operatorPaths) {
		t.Fatalf("%d operations tagged operator; the check would prove little", tagged)
	}
}
