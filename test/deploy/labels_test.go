package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// docSelector finds a kubectl label selector as the docs write one: -l or
// --selector, then the selector (a line break in the Markdown is a space).
var docSelector = regexp.MustCompile("kubectl [^`]*?(?:-l|--selector)[ =]([^ `]+)")

// docSelectors returns every kubectl label selector in the docs (docs/*.md,
// the README and deploy/kubernetes/README.md), each with the file it is in.
func docSelectors(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(repoPath("docs/*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, repoPath("README.md"), repoPath(kubeDir+"/README.md"))
	found := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(string(data), "\n", " ")
		for _, m := range docSelector.FindAllStringSubmatch(text, -1) {
			found[m[1]] = filepath.Base(f)
		}
	}
	return found
}

// TestDocsLabelSelectorsMatchPods: every label selector the docs give to
// kubectl selects the pods of every Kubernetes route as built (the guide's
// log query once used app.kubernetes.io/name while the manifests said app),
// and the pods carry the recommended app.kubernetes.io/name label.
func TestDocsLabelSelectorsMatchPods(t *testing.T) {
	selectors := docSelectors(t)
	if len(selectors) == 0 {
		t.Fatal("no kubectl -l selector found in the docs: the pattern or the docs moved")
	}
	for _, b := range routes(t) {
		var d *appsv1.Deployment
		for _, o := range b.objects {
			if dep, ok := o.(*appsv1.Deployment); ok {
				d = dep
			}
		}
		if d == nil {
			t.Fatalf("%s builds no Deployment", b.dir)
		}
		pod := labels.Set(d.Spec.Template.Labels)
		if pod["app.kubernetes.io/name"] != "disbursementd" {
			t.Errorf("%s: the pods' labels %v lack app.kubernetes.io/name=disbursementd", b.dir, pod)
		}
		for s, file := range selectors {
			sel, err := labels.Parse(s)
			if err != nil {
				t.Errorf("%s: kubectl selector %q does not parse: %v", file, s, err)
				continue
			}
			if !sel.Matches(pod) {
				t.Errorf("%s: kubectl -l %s matches no pod of %s (pod labels %v)", file, s, b.dir, pod)
			}
		}
	}
}
