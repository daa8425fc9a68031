package deploy

import (
	"fmt"
	"maps"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// secretsDoc is the page whose commands create the Secrets.
const secretsDoc = kubeDir + "/README.md"

var (
	createSecret = regexp.MustCompile(`^kubectl create secret generic (\S+)((?: --from-(?:file|literal)=\S+)+)`)
	fromArg      = regexp.MustCompile(`--from-(file|literal)=([^=\s]+)=('[^']*'|\S+)`)
)

// operatorSecrets are the Secrets the page's commands create, in order; a
// --from-file value is the file's path (the test has no such file).
func operatorSecrets(t *testing.T) []*corev1.Secret {
	t.Helper()
	var out []*corev1.Secret
	for _, line := range strings.Split(fencedBlock(t, secretsDoc, "kubectl create secret"), "\n") {
		m := createSecret.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := &corev1.Secret{StringData: map[string]string{}}
		s.Name, s.Kind, s.APIVersion = m[1], "Secret", "v1"
		for _, a := range fromArg.FindAllStringSubmatch(m[2], -1) {
			s.StringData[a[2]] = strings.Trim(a[3], "'")
		}
		out = append(out, s)
	}
	if len(out) < 2 {
		t.Fatalf("%s creates %d Secrets; the check would prove nothing", secretsDoc, len(out))
	}
	return out
}

// cluster is what kubectl leaves in a namespace: one object per kind and
// name. apply creates or replaces; create refuses a name that exists.
type cluster map[string]runtime.Object

func objectKey(o runtime.Object) string {
	gvk := o.GetObjectKind().GroupVersionKind()
	name := ""
	if m, ok := o.(interface{ GetName() string }); ok {
		name = m.GetName()
	}
	return gvk.Kind + "/" + name
}

func (c cluster) create(o runtime.Object) error {
	if _, ok := c[objectKey(o)]; ok {
		return fmt.Errorf("%s: AlreadyExists", objectKey(o))
	}
	c[objectKey(o)] = o.DeepCopyObject()
	return nil
}

func (c cluster) apply(o runtime.Object) { c[objectKey(o)] = o.DeepCopyObject() }

// TestKubernetesSecretsSurviveApply replays the page's commands: the
// operator creates the Secrets, then applies each route; no Secret value
// is replaced (secret.yaml with its REPLACE placeholders used to be in the
// resources, so apply overwrote them), and applying first does not make
// the creates fail. Every Secret the pods read is one the page creates
// (or optional), with the keys the pods read from it.
func TestKubernetesSecretsSurviveApply(t *testing.T) {
	block := fencedBlock(t, secretsDoc, "kubectl create secret")
	if c, a := strings.LastIndex(block, "kubectl create secret"), strings.Index(block, "kubectl apply -k"); a < 0 || a < c {
		t.Errorf("%s: the apply must come after the Secrets are created:\n%s", secretsDoc, block)
	}
	created := operatorSecrets(t)
	byName := map[string]*corev1.Secret{}
	for _, s := range created {
		byName[s.Name] = s
	}
	for _, b := range routes(t) {
		t.Run(routeName(b.dir), func(t *testing.T) {
			// Create, then apply.
			c := cluster{}
			for _, s := range created {
				if err := c.create(s); err != nil {
					t.Fatal(err)
				}
			}
			for _, o := range b.objects {
				c.apply(o)
			}
			for _, s := range created {
				got := c[objectKey(s)].(*corev1.Secret)
				if !maps.Equal(got.StringData, s.StringData) || len(got.Data) > 0 {
					out, _ := yaml.Marshal(got)
					t.Errorf("apply replaced the operator's Secret %s with:\n%s", s.Name, out)
				}
			}
			// Apply, then create.
			c = cluster{}
			for _, o := range b.objects {
				c.apply(o)
			}
			for _, s := range created {
				if err := c.create(s); err != nil {
					t.Errorf("creating the Secret after an apply fails: %v", err)
				}
			}
			checkSecretRefs(t, sortRoute(t, b), byName)
		})
	}
}

// checkSecretRefs: each Secret the pods read is created by the page or
// optional, and a Secret volume's files that a container reads are keys
// of it.
func checkSecretRefs(t *testing.T, r route, byName map[string]*corev1.Secret) {
	t.Helper()
	spec := r.deployment.Spec.Template.Spec
	for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		for _, from := range c.EnvFrom {
			if ref := from.SecretRef; ref != nil && byName[ref.Name] == nil && (ref.Optional == nil || !*ref.Optional) {
				t.Errorf("container %s needs Secret %s, which the page does not create", c.Name, ref.Name)
			}
		}
		for _, m := range c.VolumeMounts {
			for _, v := range spec.Volumes {
				if v.Name != m.Name || v.Secret == nil {
					continue
				}
				s := byName[v.Secret.SecretName]
				if s == nil {
					t.Errorf("volume %s mounts Secret %s, which the page does not create", v.Name, v.Secret.SecretName)
					continue
				}
				read := regexp.MustCompile(regexp.QuoteMeta(m.MountPath) + `/([\w.-]+)`)
				for _, arg := range append(c.Command, c.Args...) {
					for _, f := range read.FindAllStringSubmatch(arg, -1) {
						if _, ok := s.StringData[f[1]]; !ok {
							t.Errorf("container %s reads %s/%s; Secret %s has keys %v", c.Name, m.MountPath, f[1], s.Name, slicesKeys(s.StringData))
						}
					}
				}
			}
		}
	}
}

func slicesKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
