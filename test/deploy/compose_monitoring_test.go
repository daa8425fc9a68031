package deploy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestComposeMonitoring: the compose file's optional Prometheus (profile
// monitoring) is off by default; with the profile it mounts
// deploy/monitoring, scrapes every replica on its metrics listener
// (DISB_HTTP_METRICS_ADDR, which no replica publishes) as job
// disbursementd, and loads the shipped rules.
func TestComposeMonitoring(t *testing.T) {
	if _, err := loadCompose(t).GetService("prometheus"); err == nil {
		t.Error("Prometheus runs without the monitoring profile")
	}
	p := loadCompose(t, "monitoring")
	prom, err := p.GetService("prometheus")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(prom.Profiles, "monitoring") {
		t.Errorf("prometheus has profiles %v", prom.Profiles)
	}
	mounted := ""
	for _, v := range prom.Volumes {
		if v.Target == "/etc/prometheus" && v.ReadOnly {
			mounted = v.Source
		}
	}
	if mounted == "" || filepath.Clean(mounted) != filepath.Clean(mustAbs(t, repoPath("deploy/monitoring"))) {
		t.Fatalf("prometheus mounts %q at /etc/prometheus, want deploy/monitoring read-only", mounted)
	}
	var cfg struct {
		RuleFiles     []string `json:"rule_files"`
		ScrapeConfigs []struct {
			JobName       string `json:"job_name"`
			StaticConfigs []struct {
				Targets []string `json:"targets"`
			} `json:"static_configs"`
		} `json:"scrape_configs"`
	}
	data, err := os.ReadFile(filepath.Join(mounted, "prometheus.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("prometheus.yml: %v", err)
	}
	if !slices.Contains(cfg.RuleFiles, "rules.yml") {
		t.Errorf("prometheus.yml loads %v, not the shipped rules.yml", cfg.RuleFiles)
	}
	var targets []string
	for _, sc := range cfg.ScrapeConfigs {
		if sc.JobName != "disbursementd" {
			continue
		}
		for _, st := range sc.StaticConfigs {
			targets = append(targets, st.Targets...)
		}
	}
	var want []string
	for _, s := range p.Services {
		if !strings.HasPrefix(s.Name, "disbursementd") {
			continue
		}
		addr := composeEnv(s)["DISB_HTTP_METRICS_ADDR"]
		if addr == "" {
			t.Errorf("%s has no DISB_HTTP_METRICS_ADDR: /metrics stays on the partner-facing port", s.Name)
			continue
		}
		port := addr[strings.LastIndex(addr, ":")+1:]
		want = append(want, s.Name+":"+port)
		for _, pp := range s.Ports {
			if pp.Target == mustPort(t, port) {
				t.Errorf("%s publishes its metrics port %s on the host", s.Name, port)
			}
		}
	}
	slices.Sort(targets)
	slices.Sort(want)
	if !slices.Equal(targets, want) || len(want) < 2 {
		t.Errorf("job disbursementd scrapes %v, want every replica's metrics listener %v", targets, want)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func mustPort(t *testing.T, s string) uint32 {
	t.Helper()
	var n uint32
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("port %q", s)
		}
		n = n*10 + uint32(c-'0')
	}
	return n
}
