package deploy

import (
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

// goMemLimit parses GOMEMLIMIT as the Go runtime does (a number and an
// optional B, KiB, MiB, GiB or TiB), in bytes.
func goMemLimit(t *testing.T, s string) int64 {
	t.Helper()
	units := []struct {
		suffix string
		shift  uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseInt(n, 10, 64)
			if err != nil {
				t.Fatalf("GOMEMLIMIT %q: %v", s, err)
			}
			return v << u.shift
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("GOMEMLIMIT %q is not a size the Go runtime reads", s)
	}
	return v
}

// checkMemLimit: GOMEMLIMIT is set, between 70 % and 80 % of the memory
// limit, so the runtime collects before the limit kills the process and
// leaves room for what is not Go heap (docs/decisions.md, "Bytes in
// flight": 3/4 is what the byte bound's default was measured with).
func checkMemLimit(t *testing.T, where, gomemlimit string, limit int64) {
	t.Helper()
	if gomemlimit == "" || limit <= 0 {
		t.Errorf("%s: GOMEMLIMIT %q with a memory limit of %d bytes; set both", where, gomemlimit, limit)
		return
	}
	share := float64(goMemLimit(t, gomemlimit)) / float64(limit)
	if share < 0.70 || share > 0.80 {
		t.Errorf("%s: GOMEMLIMIT %s is %.0f %% of the memory limit (%d bytes), want 70-80 %%", where, gomemlimit, share*100, limit)
	}
}

// TestGoMemLimitFollowsEveryMemoryLimit: the Deployment of every
// Kubernetes route, both Compose replicas and the systemd unit set
// GOMEMLIMIT against their memory limit.
func TestGoMemLimitFollowsEveryMemoryLimit(t *testing.T) {
	for _, b := range routes(t) {
		for _, o := range b.objects {
			d, ok := o.(*appsv1.Deployment)
			if !ok {
				continue
			}
			c := d.Spec.Template.Spec.Containers[0]
			var env string
			for _, e := range c.Env {
				if e.Name == "GOMEMLIMIT" {
					env = e.Value
				}
			}
			checkMemLimit(t, b.dir+" "+c.Name, env, c.Resources.Limits.Memory().Value())
		}
	}
	p := loadCompose(t)
	for _, name := range []string{"disbursementd-a", "disbursementd-b"} {
		s, err := p.GetService(name)
		if err != nil {
			t.Fatal(err)
		}
		checkMemLimit(t, "compose "+name, composeEnv(s)["GOMEMLIMIT"], int64(s.MemLimit))
	}
	u := readUnit(t, repoPath(unitFile))
	var env string
	for _, e := range u["Environment"] {
		if v, ok := strings.CutPrefix(e, "GOMEMLIMIT="); ok {
			env = v
		}
	}
	max := strings.TrimSpace(u.one(t, "MemoryMax"))
	shift := map[byte]uint{'K': 10, 'M': 20, 'G': 30, 'T': 40}[max[len(max)-1]]
	n, err := strconv.ParseInt(strings.TrimRight(max, "KMGT"), 10, 64)
	if err != nil {
		t.Fatalf("MemoryMax=%s: %v", max, err)
	}
	checkMemLimit(t, "systemd unit", env, n<<shift)
}
