package docs

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var updateMonitoring = flag.Bool("update-monitoring", false, "rewrite prometheusrule.yaml and the operator guide's alert table from deploy/monitoring/rules.yml")

// monitoringDir holds the shipped rules, their tests and the dashboard.
var monitoringDir = filepath.Join(root, "deploy", "monitoring")

// rule is one rule of rules.yml.
type rule struct {
	Alert, Record, Expr, For string
	Labels, Annotations      map[string]string
}

// ruleGroups reads rules.yml, the one source of the rules.
func ruleGroups(t *testing.T) []struct {
	Name  string
	Rules []rule
} {
	t.Helper()
	var f struct {
		Groups []struct {
			Name  string
			Rules []rule
		}
	}
	data := repoFile(t, "deploy/monitoring/rules.yml")
	if err := yaml.Unmarshal([]byte(data), &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Groups) == 0 {
		t.Fatal("rules.yml has no groups")
	}
	return f.Groups
}

func alerts(t *testing.T) []rule {
	var out []rule
	for _, g := range ruleGroups(t) {
		for _, r := range g.Rules {
			if r.Alert != "" {
				out = append(out, r)
			}
		}
	}
	return out
}

// prometheusRuleHeader opens the generated PrometheusRule.
const prometheusRuleHeader = `# Generated from rules.yml (the same groups) by
#   go test ./test/docs -run TestMonitoringRulesAreOneSource -update-monitoring
# Do not edit: edit rules.yml. Your Prometheus' ruleSelector must match these labels
# (kube-prometheus-stack: add release: <its release name>).
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: disbursementd
  labels: {app.kubernetes.io/name: disbursementd, role: alert-rules}
spec:
`

// prometheusRule renders rules.yml's groups as a PrometheusRule: its text
// from "groups:" on, indented under spec.
func prometheusRule(rulesYML string) (string, error) {
	i := strings.Index(rulesYML, "\ngroups:\n")
	if i < 0 {
		return "", fmt.Errorf("rules.yml has no top-level groups: line")
	}
	var b strings.Builder
	b.WriteString(prometheusRuleHeader)
	for _, line := range strings.SplitAfter(rulesYML[i+1:], "\n") {
		if strings.TrimSpace(line) != "" {
			b.WriteString("  ")
		}
		b.WriteString(line)
	}
	return b.String(), nil
}

// TestMonitoringRulesAreOneSource: prometheusrule.yaml is rules.yml's
// groups, as generated; both parse to the same rules.
func TestMonitoringRulesAreOneSource(t *testing.T) {
	want, err := prometheusRule(repoFile(t, "deploy/monitoring/rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(monitoringDir, "prometheusrule.yaml")
	if *updateMonitoring {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := repoFile(t, "deploy/monitoring/prometheusrule.yaml"); got != want {
		t.Fatalf("prometheusrule.yaml is not rules.yml's groups; run\n  go test ./test/docs -run TestMonitoringRulesAreOneSource -update-monitoring")
	}
	var pr struct {
		Spec struct{ Groups []struct{ Rules []rule } }
	}
	if err := yaml.Unmarshal([]byte(want), &pr); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range pr.Spec.Groups {
		n += len(g.Rules)
	}
	m := 0
	for _, g := range ruleGroups(t) {
		m += len(g.Rules)
	}
	if n != m || n == 0 {
		t.Errorf("PrometheusRule has %d rules, rules.yml %d", n, m)
	}
}

// TestMonitoringRulesAreTested: every alert has a for: (a blip never
// pages; "0s" where the expression has a floor of its own), a severity and
// both a summary and a description; and the rules' unit tests
// (rules_test.yml, rules_outage_test.yml) test each alert firing and not
// firing, and each recording rule.
func TestMonitoringRulesAreTested(t *testing.T) {
	type testFile struct {
		Tests []struct {
			AlertRuleTest []struct {
				Alertname string `yaml:"alertname"`
				ExpAlerts []any  `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
			PromQLExprTest []struct{ Expr string } `yaml:"promql_expr_test"`
		}
	}
	var tests testFile
	for _, f := range []string{"deploy/monitoring/rules_test.yml", "deploy/monitoring/rules_outage_test.yml"} {
		var one testFile
		if err := yaml.Unmarshal([]byte(repoFile(t, f)), &one); err != nil {
			t.Fatal(err)
		}
		tests.Tests = append(tests.Tests, one.Tests...)
	}
	firing, quiet, exprs := map[string]bool{}, map[string]bool{}, ""
	for _, tc := range tests.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				firing[a.Alertname] = true
			} else {
				quiet[a.Alertname] = true
			}
		}
		for _, e := range tc.PromQLExprTest {
			exprs += e.Expr + "\n"
		}
	}
	for _, g := range ruleGroups(t) {
		for _, r := range g.Rules {
			if r.Record != "" {
				if !strings.Contains(exprs, r.Record) {
					t.Errorf("recording rule %s has no promql_expr_test", r.Record)
				}
				continue
			}
			if r.For == "" || r.Labels["severity"] == "" || r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("alert %s needs for:, a severity label, a summary and a description", r.Alert)
			}
			if !firing[r.Alert] || !quiet[r.Alert] {
				t.Errorf("alert %s: tested firing %v, not firing %v; the rules' unit tests need both", r.Alert, firing[r.Alert], quiet[r.Alert])
			}
		}
	}
}

// alertTable renders the operator guide's alert table from rules.yml.
func alertTable(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| alert | severity | for | expression | what it means, what to do |\n|---|---|---|---|---|\n")
	cell := strings.NewReplacer("|", `\|`, "\n", " ")
	space := regexp.MustCompile(`\s+`)
	label := regexp.MustCompile(`\{\{ \$labels\.(\w+) \}\}`)
	for _, r := range alerts(t) {
		expr := space.ReplaceAllString(strings.TrimSpace(r.Expr), " ")
		summary := label.ReplaceAllString(r.Annotations["summary"], "<$1>")
		fmt.Fprintf(&b, "| `%s` | %s | %s | `%s` | **%s.** %s |\n", r.Alert, r.Labels["severity"], r.For,
			cell.Replace(expr), cell.Replace(summary), cell.Replace(r.Annotations["description"]))
	}
	return b.String()
}

// TestMonitoringAlertTable: the operator guide's alert table is rules.yml's
// alerts as they are.
func TestMonitoringAlertTable(t *testing.T) {
	const begin, end = "<!-- alert table: begin", "<!-- alert table: end -->"
	guide := repoFile(t, "docs/operator-guide.md")
	i, j := strings.Index(guide, begin), strings.Index(guide, end)
	if i < 0 || j < i {
		t.Fatalf("docs/operator-guide.md has no %q … %q section", begin, end)
	}
	start := i + strings.Index(guide[i:], "\n") + 1
	want := alertTable(t)
	if *updateMonitoring {
		guide = guide[:start] + want + guide[j:]
		if err := os.WriteFile(filepath.Join(root, "docs", "operator-guide.md"), []byte(guide), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := guide[start:j]; got != want {
		t.Errorf("the operator guide's alert table differs from rules.yml; run\n  go test ./test/docs -run TestMonitoringAlertTable -update-monitoring")
	}
}

// TestMonitoringDashboardDescribed: every panel of the dashboard is
// described in the operator guide by its title, and each queries the
// data source variable, so that an import picks the operator's
// Prometheus.
func TestMonitoringDashboardDescribed(t *testing.T) {
	var d struct {
		Panels []struct {
			ID         int
			Type       string
			Title      string
			Datasource struct{ UID string }
		}
	}
	if err := yaml.Unmarshal([]byte(repoFile(t, "deploy/monitoring/dashboard.json")), &d); err != nil {
		t.Fatal(err)
	}
	guide := repoFile(t, "docs/operator-guide.md")
	section := guide[strings.Index(guide, "## Alerts and dashboard"):]
	ids := map[int]bool{}
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		if p.Type == "row" {
			if !strings.Contains(section, "*"+p.Title+"* row") {
				t.Errorf("the guide does not describe the row %q", p.Title)
			}
			continue
		}
		if !strings.Contains(section, "**"+p.Title+"**") {
			t.Errorf("the guide does not describe the panel %q", p.Title)
		}
		if p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q queries data source %q, not ${datasource}", p.Title, p.Datasource.UID)
		}
	}
	if len(d.Panels) < 10 {
		t.Fatalf("%d panels", len(d.Panels))
	}
}
