package test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/lender/disbursementd/config"
)

// The deploy files cannot run here; this keeps them consistent with the
// configuration keys, the probes and each other.

func knownEnv() map[string]bool {
	m := map[string]bool{}
	for _, k := range config.Keys() {
		m[config.EnvName(k)] = true
	}
	return m
}

func yamlDocs(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var docs []map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var d map[string]any
		if err := dec.Decode(&d); err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("%s: %v", path, err)
		}
		if d != nil {
			docs = append(docs, d)
		}
	}
	return docs
}

func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func TestKubernetesManifests(t *testing.T) {
	env := map[string]string{}
	var deployment map[string]any
	for _, f := range mustGlob(t, "../deploy/kubernetes/*.yaml") {
		for _, d := range yamlDocs(t, f) {
			switch d["kind"] {
			case "ConfigMap":
				for k, v := range d["data"].(map[string]any) {
					env[k] = v.(string)
				}
			case "Secret":
				for k, v := range d["stringData"].(map[string]any) {
					if strings.HasPrefix(k, "DISB_") {
						env[k] = v.(string)
					}
				}
			case "Deployment":
				deployment = d
			}
		}
	}
	known := knownEnv()
	for k := range env {
		if !known[k] {
			t.Errorf("Kubernetes sets %s, which is no configuration key", k)
		}
	}
	if deployment == nil {
		t.Fatal("no Deployment")
	}
	containers := dig(deployment, "spec", "template", "spec", "containers").([]any)
	c := containers[0].(map[string]any)
	port := dig(c["ports"].([]any)[0], "containerPort")
	if !strings.HasSuffix(env["DISB_HTTP_ADDR"], ":"+toString(port)) {
		t.Errorf("containerPort %v does not match DISB_HTTP_ADDR %s", port, env["DISB_HTTP_ADDR"])
	}
	if dig(c, "readinessProbe", "httpGet", "path") != "/readyz" || dig(c, "livenessProbe", "httpGet", "path") != "/healthz" {
		t.Error("probes must be /readyz (readiness) and /healthz (liveness)")
	}
	if dig(c, "resources", "limits", "memory") == nil || dig(c, "resources", "requests", "cpu") == nil {
		t.Error("resource requests and limits missing")
	}
	if dig(deployment, "spec", "template", "spec", "securityContext", "runAsNonRoot") != true {
		t.Error("the pod must run as non-root")
	}
	mounts := map[string]bool{}
	for _, m := range c["volumeMounts"].([]any) {
		mounts[dig(m, "mountPath").(string)] = true
	}
	if !mounts[env["DISB_UPLOADS_DIR"]] || !mounts[filepath.Dir(env["DISB_AUTH_PRIVATE_KEY_FILE"])] {
		t.Errorf("uploads %s or keys %s not mounted: %v", env["DISB_UPLOADS_DIR"], env["DISB_AUTH_PRIVATE_KEY_FILE"], mounts)
	}
	// The values themselves pass the service's own validation.
	t.Chdir(t.TempDir())
	for k, v := range env {
		t.Setenv(k, v)
	}
	if _, err := config.Load(""); err != nil {
		t.Fatalf("the ConfigMap and Secret do not validate: %v", err)
	}
}

func toString(v any) string { return fmt.Sprint(v) }

func TestComposeFile(t *testing.T) {
	docs := yamlDocs(t, "../deploy/docker-compose.yml")
	svc := dig(docs[0], "services", "disbursementd").(map[string]any)
	known := knownEnv()
	env := map[string]string{}
	for k, v := range svc["environment"].(map[string]any) {
		if !known[k] {
			t.Errorf("compose sets %s, which is no configuration key", k)
		}
		env[k] = toString(v)
	}
	if env["DISB_STORE_DRIVER"] != "mysql" || !strings.Contains(env["DISB_STORE_DSN"], "tcp(mysql:3306)") {
		t.Errorf("compose does not point the service at its MySQL: %v", env)
	}
	if dig(docs[0], "services", "mysql") == nil {
		t.Error("no mysql service")
	}
	ports := svc["ports"].([]any)
	if !strings.HasSuffix(ports[0].(string), ":"+strings.Split(env["DISB_HTTP_ADDR"], ":")[1]) {
		t.Errorf("published port %v does not match DISB_HTTP_ADDR %s", ports, env["DISB_HTTP_ADDR"])
	}
	vols := strings.Join(toStrings(svc["volumes"]), " ")
	if !strings.Contains(vols, ":"+env["DISB_UPLOADS_DIR"]) || !strings.Contains(vols, ":"+filepath.Dir(env["DISB_AUTH_PRIVATE_KEY_FILE"])) {
		t.Errorf("uploads or keys volume missing: %s", vols)
	}
	t.Chdir(t.TempDir())
	for k, v := range env {
		t.Setenv(k, v)
	}
	if _, err := config.Load(""); err != nil {
		t.Fatalf("compose environment does not validate: %v", err)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

var envLine = regexp.MustCompile(`(?:ENV|Environment=)\s*(DISB_[A-Z_]+)=|\b(DISB_[A-Z_]+)=`)

func TestDockerfileAndSystemdUnit(t *testing.T) {
	known := knownEnv()
	for _, f := range []string{"../deploy/Dockerfile", "../deploy/systemd/disbursementd.service"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			for _, m := range envLine.FindAllStringSubmatch(sc.Text(), -1) {
				name := m[1] + m[2]
				if !known[name] {
					t.Errorf("%s sets %s, which is no configuration key", f, name)
				}
			}
		}
	}
	docker, _ := os.ReadFile("../deploy/Dockerfile")
	for _, want := range []string{"CGO_ENABLED=0", "USER 65532", "FROM gcr.io/distroless/static", "EXPOSE 8080", "DISB_HTTP_ADDR=0.0.0.0:8080", `ENTRYPOINT ["/usr/local/bin/disbursementd"]`} {
		if !strings.Contains(string(docker), want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	if strings.Count(string(docker), "\nFROM ") < 1 || !strings.HasPrefix(strings.SplitN(string(docker), "FROM ", 2)[1], "golang:") {
		t.Error("Dockerfile is not a multi-stage build from golang")
	}
	unit, _ := os.ReadFile("../deploy/systemd/disbursementd.service")
	for _, want := range []string{"disbursementd serve", "disbursementd migrate", "KillSignal=SIGTERM", "User=disbursementd", "NoNewPrivileges=true"} {
		if !strings.Contains(string(unit), want) {
			t.Errorf("systemd unit lacks %q", want)
		}
	}
}
