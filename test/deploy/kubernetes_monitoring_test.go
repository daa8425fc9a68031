package deploy

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// rulesFile is deploy/monitoring/rules.yml, found before a check moves
// the working directory.
var rulesFile, _ = filepath.Abs(repoPath("deploy/monitoring/rules.yml"))

// checkMonitoring: the ServiceMonitor reaches every pod's metrics
// listener (DISB_HTTP_METRICS_ADDR) through a Service that selects the
// pods and names that container port, labels it job="disbursementd" as
// the rules expect, a NetworkPolicy lets something reach that port, and
// the PrometheusRule holds exactly the groups of deploy/monitoring/rules.yml.
func checkMonitoring(t *testing.T, r route, env map[string]string) {
	t.Helper()
	addr := env["DISB_HTTP_METRICS_ADDR"]
	if addr == "" {
		t.Fatal("a ServiceMonitor, but /metrics is on the partner-facing port (DISB_HTTP_METRICS_ADDR unset)")
	}
	port, _ := strconv.Atoi(addr[strings.LastIndex(addr, ":")+1:])
	container := r.deployment.Spec.Template.Spec.Containers[0]
	portName := ""
	for _, p := range container.Ports {
		if int(p.ContainerPort) == port {
			portName = p.Name
		}
	}
	if portName == "" {
		t.Fatalf("the container names no port %d (DISB_HTTP_METRICS_ADDR %s)", port, addr)
	}
	pods := labels.Set(r.deployment.Spec.Template.Labels)
	for _, sm := range r.monitors {
		sel, err := metav1.LabelSelectorAsSelector(&sm.Spec.Selector)
		if err != nil {
			t.Fatal(err)
		}
		var svcs []*corev1.Service
		for _, s := range r.services {
			if sel.Matches(labels.Set(s.Labels)) && labels.SelectorFromSet(s.Spec.Selector).Matches(pods) {
				svcs = append(svcs, s)
			}
		}
		if len(svcs) != 1 {
			t.Fatalf("ServiceMonitor %s selects %d Services of the pods, want 1", sm.Name, len(svcs))
		}
		for _, ep := range sm.Spec.Endpoints {
			ok := false
			for _, p := range svcs[0].Spec.Ports {
				ok = ok || p.Name == ep.Port && p.TargetPort.String() == portName
			}
			if !ok || (ep.Path != "" && ep.Path != "/metrics") {
				t.Errorf("ServiceMonitor %s endpoint %s %s does not reach the container's %s port's /metrics", sm.Name, ep.Port, ep.Path, portName)
			}
			job := false
			for _, rl := range ep.RelabelConfigs {
				job = job || rl.TargetLabel == "job" && rl.Replacement != nil && *rl.Replacement == "disbursementd" && len(rl.SourceLabels) == 0
			}
			if !job {
				t.Errorf("ServiceMonitor %s does not set job=\"disbursementd\", which every rule and panel selects", sm.Name)
			}
		}
	}
	reached := false
	for _, np := range r.netpols {
		for _, rule := range np.Spec.Ingress {
			for _, p := range rule.Ports {
				reached = reached || p.Port != nil && (p.Port.String() == portName || p.Port.IntValue() == port)
			}
		}
	}
	if !reached {
		t.Errorf("no NetworkPolicy lets Prometheus reach the %s port", portName)
	}
	data, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var want monitoringv1.PrometheusRuleSpec
	if err := yaml.UnmarshalStrict(data, &want); err != nil {
		t.Fatalf("rules.yml does not read as the operator's rule groups: %v", err)
	}
	if len(r.rules) != 1 || !reflect.DeepEqual(r.rules[0].Spec, want) {
		t.Errorf("the route's PrometheusRule is not deploy/monitoring/rules.yml (%d PrometheusRules)", len(r.rules))
	}
}
