package deploy

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// kubeDir is where the Kubernetes routes live.
const kubeDir = "deploy/kubernetes"

// crdGroups are API groups whose kinds the Kubernetes API types do not
// hold: the Prometheus Operator's (ServiceMonitor, PrometheusRule). Their
// objects are read as unstructured and converted, refusing unknown
// fields, into the operator's own Go API types, from which its CRDs'
// schemas are generated (controller-gen): a misspelled or misplaced field
// fails here as the API server would refuse it.
var crdGroups = map[string]func() runtime.Object{
	"monitoring.coreos.com/ServiceMonitor": func() runtime.Object { return &monitoringv1.ServiceMonitor{} },
	"monitoring.coreos.com/PrometheusRule": func() runtime.Object { return &monitoringv1.PrometheusRule{} },
}

// built is one kustomization's output, each object decoded strictly.
type built struct {
	dir     string // relative to deploy/kubernetes
	objects []runtime.Object
}

// strictDecoder decodes YAML into the Kubernetes API types, refusing
// unknown and duplicate fields.
func strictDecoder() runtime.Decoder {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme,
		policyv1.AddToScheme, networkingv1.AddToScheme} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
	return json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme,
		json.SerializerOptions{Yaml: true, Strict: true})
}

// kustomizations lists every folder under deploy/kubernetes with a
// kustomization file, and which of them are components.
func kustomizations(t *testing.T) (dirs []string, components map[string]bool) {
	t.Helper()
	components = map[string]bool{}
	root := repoPath(kubeDir)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "kustomization.yaml" {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var head struct{ Kind string }
		if err := yaml.Unmarshal(data, &head); err != nil {
			return err
		}
		dirs = append(dirs, filepath.ToSlash(rel))
		components[filepath.ToSlash(rel)] = head.Kind == "Component"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 3 {
		t.Fatalf("only %d kustomizations under %s", len(dirs), kubeDir)
	}
	return dirs, components
}

// buildKustomization runs kustomize (its Go API, as kubectl -k does) on
// one folder and decodes every object it outputs strictly.
func buildKustomization(t *testing.T, dir string) built {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), repoPath(kubeDir+"/"+dir))
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	dec := strictDecoder()
	b := built{dir: dir}
	for _, r := range m.Resources() {
		data, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		group, _, _ := strings.Cut(r.GetApiVersion(), "/")
		if strings.Contains(group, ".") && !strings.HasSuffix(group, ".k8s.io") {
			obj, err := decodeCRD(data, group+"/"+r.GetKind())
			if err != nil {
				t.Errorf("%s: %s %s: %v\n%s", dir, r.GetKind(), r.GetName(), err, data)
				continue
			}
			b.objects = append(b.objects, obj)
			continue
		}
		obj, _, err := dec.Decode(data, nil, nil)
		if err != nil {
			t.Errorf("%s: %s %s does not decode strictly into the Kubernetes API types: %v\n%s", dir, r.GetKind(), r.GetName(), err, data)
			continue
		}
		b.objects = append(b.objects, obj)
	}
	return b
}

// decodeCRD reads an object of a CRD as unstructured and converts it
// strictly into its Go API type (see crdGroups).
func decodeCRD(data []byte, groupKind string) (runtime.Object, error) {
	newObj, ok := crdGroups[groupKind]
	if !ok {
		return nil, fmt.Errorf("no Go API type to check a %s against", groupKind)
	}
	var u unstructured.Unstructured
	if err := yaml.Unmarshal(data, &u.Object); err != nil {
		return nil, err
	}
	obj := newObj()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, obj, true); err != nil {
		return nil, fmt.Errorf("does not convert strictly into the operator's API type: %w", err)
	}
	return obj, nil
}

// routes builds every kustomization that is not a component.
func routes(t *testing.T) []built {
	t.Helper()
	dirs, components := kustomizations(t)
	var out []built
	for _, d := range dirs {
		if !components[d] {
			out = append(out, buildKustomization(t, d))
		}
	}
	return out
}

// TestKustomizationsBuild: every kustomization under deploy/kubernetes
// builds (the fs-uploads overlay used to fail with "cycle detected": it
// sat inside its base's folder), every object it makes decodes strictly
// into the Kubernetes API types, and every component is used by some
// kustomization, which builds it.
func TestKustomizationsBuild(t *testing.T) {
	dirs, components := kustomizations(t)
	var texts strings.Builder
	for _, d := range dirs {
		data, _ := os.ReadFile(repoPath(kubeDir + "/" + d + "/kustomization.yaml"))
		texts.Write(data)
	}
	for _, d := range dirs {
		t.Run(routeName(d), func(t *testing.T) {
			if components[d] {
				if !strings.Contains(texts.String(), filepath.Base(d)) {
					t.Errorf("component %s is listed by no kustomization, so nothing builds it", d)
				}
				return
			}
			b := buildKustomization(t, d)
			if len(b.objects) == 0 {
				t.Errorf("%s builds nothing", d)
			}
		})
	}
}

// routeName names a kustomization folder in test output.
func routeName(dir string) string {
	if dir == "." {
		return "deploy_kubernetes"
	}
	return strings.ReplaceAll(dir, "/", "_")
}
