package deploy

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/lender/disbursementd/config"
)

// The checks TestKubernetesRoutes makes of each route, one object kind each.

// checkPDB: one budget selects the pods, and it lets a drain evict one.
func checkPDB(t *testing.T, r route, replicas int32) {
	t.Helper()
	pods := labels.Set(r.deployment.Spec.Template.Labels)
	n := 0
	for _, p := range r.pdbs {
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
		if err != nil || !sel.Matches(pods) {
			continue
		}
		n++
		if p.Spec.MinAvailable != nil && p.Spec.MaxUnavailable != nil {
			t.Errorf("PodDisruptionBudget %s sets both minAvailable and maxUnavailable", p.Name)
		}
		if v := p.Spec.MinAvailable; v != nil && (v.Type != intstr.Int || v.IntVal >= replicas) {
			t.Errorf("PodDisruptionBudget %s: minAvailable %s of %d replicas blocks every drain", p.Name, v.String(), replicas)
		}
		if v := p.Spec.MaxUnavailable; v != nil && v.Type == intstr.Int && v.IntVal < 1 {
			t.Errorf("PodDisruptionBudget %s: maxUnavailable %s blocks every drain", p.Name, v.String())
		}
	}
	if n != 1 {
		t.Errorf("%d PodDisruptionBudgets select the pods, want 1", n)
	}
}

// checkNetworkPolicy: a policy selects the pods and restricts who reaches
// them (what makes trusting the proxies' X-Forwarded-For safe).
func checkNetworkPolicy(t *testing.T, r route) {
	t.Helper()
	pods := labels.Set(r.deployment.Spec.Template.Labels)
	for _, np := range r.netpols {
		sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
		if err != nil || !sel.Matches(pods) {
			continue
		}
		for _, rule := range np.Spec.Ingress {
			if len(rule.From) == 0 {
				t.Errorf("NetworkPolicy %s lets anyone reach the pods", np.Name)
			}
		}
		return
	}
	t.Error("no NetworkPolicy selects the pods")
}

// partnerService is the Service the partners reach: the one with the
// container's "http" port.
func partnerService(t *testing.T, r route) *corev1.Service {
	t.Helper()
	var found *corev1.Service
	for _, s := range r.services {
		for _, p := range s.Spec.Ports {
			if p.TargetPort.String() == "http" {
				if found != nil {
					t.Fatalf("two Services reach the http port: %s, %s", found.Name, s.Name)
				}
				found = s
			}
		}
	}
	if found == nil {
		t.Fatalf("no Service reaches the http port")
	}
	return found
}

// checkService: each Service selects the pods and targets a port they
// name; the partner-facing one does not carry the metrics port.
func checkService(t *testing.T, r route) {
	t.Helper()
	names := map[string]bool{}
	for _, p := range r.deployment.Spec.Template.Spec.Containers[0].Ports {
		names[p.Name] = true
	}
	for _, s := range r.services {
		if !labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(r.deployment.Spec.Template.Labels)) {
			t.Errorf("Service %s selects %v, not the pods", s.Name, s.Spec.Selector)
		}
		for _, p := range s.Spec.Ports {
			if !names[p.TargetPort.String()] {
				t.Errorf("Service %s port %s targets %s, which the container does not name", s.Name, p.Name, p.TargetPort.String())
			}
		}
	}
	for _, p := range partnerService(t, r).Spec.Ports {
		if p.TargetPort.String() == "metrics" {
			t.Error("the partner-facing Service carries the metrics port")
		}
	}
}

// goRuntimeEnv are the Go runtime's variables a pod may set beside the
// service's own.
var goRuntimeEnv = map[string]bool{"GOMEMLIMIT": true, "GOGC": true, "GOMAXPROCS": true}

// checkEnvLoads: the service's own configuration accepts the environment;
// it returns the settings the pods run with.
func checkEnvLoads(t *testing.T, env map[string]string) *config.Config {
	t.Helper()
	known := map[string]bool{config.EnvConfigFile: true}
	for _, s := range config.Settings() {
		known[s.Env] = true
		if s.FileEnv != "" {
			known[s.FileEnv] = true
		}
	}
	t.Chdir(t.TempDir())
	for k, v := range env {
		if !known[k] && !goRuntimeEnv[k] {
			t.Errorf("the pods set %s, which is no configuration key", k)
		}
		t.Setenv(k, v)
	}
	c, err := config.Load("")
	if err != nil {
		t.Fatalf("the service refuses the pods' environment: %v", err)
	}
	return c
}
