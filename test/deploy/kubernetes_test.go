package deploy

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
)

// route is what one built kustomization runs.
type route struct {
	built
	deployment *appsv1.Deployment
	configMaps map[string]*corev1.ConfigMap
	pdbs       []*policyv1.PodDisruptionBudget
	netpols    []*networkingv1.NetworkPolicy
	services   []*corev1.Service
	pvcs       []*corev1.PersistentVolumeClaim
	ingresses  []*networkingv1.Ingress
	secrets    []*corev1.Secret
	monitors   []*monitoringv1.ServiceMonitor
	rules      []*monitoringv1.PrometheusRule
}

func sortRoute(t *testing.T, b built) route {
	t.Helper()
	r := route{built: b, configMaps: map[string]*corev1.ConfigMap{}}
	for _, o := range b.objects {
		switch o := o.(type) {
		case *appsv1.Deployment:
			if r.deployment != nil {
				t.Fatalf("%s: two Deployments", b.dir)
			}
			r.deployment = o
		case *corev1.ConfigMap:
			r.configMaps[o.Name] = o
		case *policyv1.PodDisruptionBudget:
			r.pdbs = append(r.pdbs, o)
		case *networkingv1.NetworkPolicy:
			r.netpols = append(r.netpols, o)
		case *corev1.Service:
			r.services = append(r.services, o)
		case *corev1.PersistentVolumeClaim:
			r.pvcs = append(r.pvcs, o)
		case *networkingv1.Ingress:
			r.ingresses = append(r.ingresses, o)
		case *corev1.Secret:
			r.secrets = append(r.secrets, o)
		case *monitoringv1.ServiceMonitor:
			r.monitors = append(r.monitors, o)
		case *monitoringv1.PrometheusRule:
			r.rules = append(r.rules, o)
		}
	}
	if r.deployment == nil {
		t.Fatalf("%s: no Deployment", b.dir)
	}
	return r
}

// env is the service container's environment as the pod would see it:
// the ConfigMaps, the Secrets the operator creates (secretValues), and
// the container's own env, which wins.
func (r route) env(t *testing.T, c corev1.Container, secretValues map[string]map[string]string) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, from := range c.EnvFrom {
		switch {
		case from.ConfigMapRef != nil:
			cm := r.configMaps[from.ConfigMapRef.Name]
			if cm == nil {
				t.Fatalf("%s: container %s reads ConfigMap %s, which the build lacks", r.dir, c.Name, from.ConfigMapRef.Name)
			}
			for k, v := range cm.Data {
				env[k] = v
			}
		case from.SecretRef != nil:
			for k, v := range secretValues[from.SecretRef.Name] {
				env[k] = v
			}
		}
	}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	return r.mountedSecrets(t, c, secretValues, env)
}

// mountedSecrets writes the files of the Secret volumes c mounts (with
// the values the operator's Secrets hold) into a temporary directory,
// and points each DISB_*_FILE variable that names one at its copy, so
// that the service's own loader reads them. A variable naming a file no
// mounted Secret has is an error: the pod would not start.
func (r route) mountedSecrets(t *testing.T, c corev1.Container, secretValues map[string]map[string]string, env map[string]string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, m := range c.VolumeMounts {
		for _, v := range r.deployment.Spec.Template.Spec.Volumes {
			if v.Name != m.Name || v.Secret == nil {
				continue
			}
			dir := t.TempDir()
			for key, value := range secretValues[v.Secret.SecretName] {
				if err := os.WriteFile(filepath.Join(dir, key), []byte(value), 0o600); err != nil {
					t.Fatal(err)
				}
				files[path.Join(m.MountPath, key)] = filepath.Join(dir, key)
			}
		}
	}
	for k, v := range env {
		if !strings.HasSuffix(k, "_FILE") || !strings.HasPrefix(v, "/secrets/") {
			continue
		}
		host, ok := files[v]
		if !ok {
			t.Errorf("container %s: %s=%s names no file of a mounted Secret (%v)", c.Name, k, v, slicesKeys(files))
			continue
		}
		env[k] = host
	}
	return env
}

// TestKubernetesRoutes: what each built route runs is what the guide
// says, and each thing issue 20 found missing is there: a pull policy
// that lets a locally built image run, resources and a read-only root on
// every container (the init containers too), replicas spread over nodes,
// a PodDisruptionBudget that never blocks a drain, a NetworkPolicy, an
// optional S3 Secret, and an environment the service itself accepts.
func TestKubernetesRoutes(t *testing.T) {
	secrets := operatorSecrets(t)
	values := map[string]map[string]string{}
	for _, s := range secrets {
		values[s.Name] = s.StringData
	}
	partner, operator := partnerPaths(t) // read before a subtest's t.Chdir
	seen := map[string]bool{}
	for _, b := range routes(t) {
		r := sortRoute(t, b)
		t.Run(routeName(b.dir), func(t *testing.T) {
			d := r.deployment
			spec := d.Spec.Template.Spec
			replicas := int32(1)
			if d.Spec.Replicas != nil {
				replicas = *d.Spec.Replicas
			}
			for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
				checkContainer(t, c)
			}
			if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
				t.Error("the pods must not mount a service account token (automountServiceAccountToken: false): the service never calls the API")
			}
			if spec.SecurityContext == nil || spec.SecurityContext.RunAsNonRoot == nil || !*spec.SecurityContext.RunAsNonRoot {
				t.Error("the pod must run as non-root")
			}
			if replicas > 1 && (spec.Affinity == nil || spec.Affinity.PodAntiAffinity == nil) {
				t.Errorf("%d replicas and no pod anti-affinity: one node may hold them all", replicas)
			}
			checkPDB(t, r, replicas)
			checkNetworkPolicy(t, r)
			checkService(t, r)

			svc := spec.Containers[0]
			for _, from := range svc.EnvFrom {
				// A generated name (configMapGenerator): an edit of the
				// settings changes it, so applying it rolls the pods.
				if cm := from.ConfigMapRef; cm != nil && !strings.HasPrefix(cm.Name, "disbursementd-") {
					t.Errorf("the pods read ConfigMap %q, not a generated name: an edit would not roll them", cm.Name)
				}
			}
			env := r.env(t, svc, values)
			for _, from := range append(svc.EnvFrom, spec.InitContainers[len(spec.InitContainers)-1].EnvFrom...) {
				if from.SecretRef != nil && from.SecretRef.Name == "disbursementd-s3" && (from.SecretRef.Optional == nil || !*from.SecretRef.Optional) {
					t.Error("the S3 Secret must be optional: without it the pods use the AWS chain (an IAM role)")
				}
			}
			mounts := map[string]bool{}
			for _, m := range svc.VolumeMounts {
				mounts[m.MountPath] = true
			}
			if !mounts[path.Dir(env["DISB_AUTH_PRIVATE_KEY_FILE"])] {
				t.Errorf("the key %s is not mounted: %v", env["DISB_AUTH_PRIVATE_KEY_FILE"], mounts)
			}
			if svc.ReadinessProbe == nil || svc.ReadinessProbe.HTTPGet.Path != "/readyz" || svc.LivenessProbe == nil || svc.LivenessProbe.HTTPGet.Path != "/healthz" {
				t.Error("probes must be /readyz (readiness) and /healthz (liveness)")
			}
			settings := checkEnvLoads(t, env)

			switch {
			case env["DISB_UPLOADS_BACKEND"] == "s3":
				seen["s3"] = true
				if replicas < 2 || env["DISB_THROTTLE_BACKEND"] != "database" || len(r.pvcs) > 0 {
					t.Errorf("uploads in S3 should run several replicas (%d) on the database throttle (%q) with no volume (%d PVCs)",
						replicas, env["DISB_THROTTLE_BACKEND"], len(r.pvcs))
				}
			case env["DISB_UPLOADS_BACKEND"] == "fs":
				seen["fs"] = true
				if replicas != 1 || len(r.pvcs) != 1 || len(r.pvcs[0].Spec.AccessModes) != 1 ||
					r.pvcs[0].Spec.AccessModes[0] != corev1.ReadWriteOnce || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
					t.Errorf("a directory of uploads is one replica's, on one ReadWriteOnce volume, recreated: %d replicas, %d PVCs, %s",
						replicas, len(r.pvcs), d.Spec.Strategy.Type)
				}
				if !mounts[env["DISB_UPLOADS_DIR"]] {
					t.Errorf("uploads.dir %s is not a mount: %v", env["DISB_UPLOADS_DIR"], mounts)
				}
			default:
				t.Errorf("uploads.backend %q", env["DISB_UPLOADS_BACKEND"])
			}
			for _, ing := range r.ingresses {
				seen["ingress"] = true
				checkIngress(t, r, ing, settings, partner, operator)
			}
			if len(r.monitors) > 0 {
				seen["monitoring"] = true
				checkMonitoring(t, r, env)
			}
		})
	}
	for _, want := range []string{"s3", "fs", "ingress", "monitoring"} {
		if !seen[want] {
			t.Errorf("no route shows %s", want)
		}
	}
}

// checkContainer: an image with a version, pulled only when missing (a
// locally built image is used as it is), bounded resources, no writes to
// the image, no privileges.
func checkContainer(t *testing.T, c corev1.Container) {
	t.Helper()
	ref := c.Image[strings.LastIndex(c.Image, "/")+1:]
	_, tag, hasTag := strings.Cut(ref, ":")
	if !hasTag || tag == "latest" {
		t.Errorf("container %s: image %q has no version tag (Kubernetes then always pulls)", c.Name, c.Image)
	}
	if c.ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("container %s: imagePullPolicy %q, want IfNotPresent", c.Name, c.ImagePullPolicy)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("container %s: resources %v", c.Name, c.Resources)
	}
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil || len(sc.Capabilities.Drop) == 0 {
		t.Errorf("container %s: want a read-only root, no privilege escalation, capabilities dropped: %+v", c.Name, sc)
	}
}
