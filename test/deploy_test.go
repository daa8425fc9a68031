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

// TestKubernetesManifests: the base runs several replicas with uploads in
// S3 and the throttle in MySQL, without any shared volume; the fs-uploads
// overlay runs one replica on a ReadWriteOnce volume mounted where
// uploads.dir says.
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
			case "PersistentVolumeClaim":
				t.Errorf("%s: the base needs no volume for uploads (they are objects)", f)
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
	if r, _ := dig(deployment, "spec", "replicas").(int); r < 2 || env["DISB_UPLOADS_BACKEND"] != "s3" || env["DISB_THROTTLE_BACKEND"] != "database" {
		t.Errorf("the base should run several replicas (%v) with uploads.backend s3 (%q) and the database throttle (%q)",
			dig(deployment, "spec", "replicas"), env["DISB_UPLOADS_BACKEND"], env["DISB_THROTTLE_BACKEND"])
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
	if !mounts[filepath.Dir(env["DISB_AUTH_PRIVATE_KEY_FILE"])] {
		t.Errorf("keys %s not mounted: %v", env["DISB_AUTH_PRIVATE_KEY_FILE"], mounts)
	}
	// The values themselves pass the service's own validation.
	t.Run("config validates", func(t *testing.T) {
		t.Chdir(t.TempDir())
		for k, v := range env {
			t.Setenv(k, v)
		}
		if _, err := config.Load(""); err != nil {
			t.Fatalf("the ConfigMap and Secrets do not validate: %v", err)
		}
	})

	t.Run("fs-uploads overlay", func(t *testing.T) {
		var patch, pvc map[string]any
		for _, f := range mustGlob(t, "../deploy/kubernetes/fs-uploads/*.yaml") {
			for _, d := range yamlDocs(t, f) {
				switch d["kind"] {
				case "Deployment":
					patch = d
				case "PersistentVolumeClaim":
					pvc = d
				}
			}
		}
		if patch == nil || pvc == nil {
			t.Fatal("the overlay needs its Deployment patch and its PersistentVolumeClaim")
		}
		if dig(patch, "spec", "replicas") != 1 || toString(dig(pvc, "spec", "accessModes")) != "[ReadWriteOnce]" {
			t.Errorf("a directory of uploads is one replica's, on ReadWriteOnce: replicas %v, %v",
				dig(patch, "spec", "replicas"), dig(pvc, "spec", "accessModes"))
		}
		pc := dig(patch, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
		penv := map[string]string{}
		for _, e := range pc["env"].([]any) {
			penv[dig(e, "name").(string)] = toString(dig(e, "value"))
		}
		mount := toString(dig(pc["volumeMounts"].([]any)[0], "mountPath"))
		if penv["DISB_UPLOADS_BACKEND"] != "fs" || penv["DISB_UPLOADS_DIR"] != mount {
			t.Errorf("overlay env %v and mount %s disagree", penv, mount)
		}
	})
}

func toString(v any) string { return fmt.Sprint(v) }

// TestComposeFile: two replicas on one MySQL and one S3-compatible
// bucket, each pointed at them, with no shared uploads volume.
func TestComposeFile(t *testing.T) {
	docs := yamlDocs(t, "../deploy/docker-compose.yml")
	services := dig(docs[0], "services").(map[string]any)
	for _, name := range []string{"mysql", "s3", "bucket"} {
		if services[name] == nil {
			t.Errorf("no %s service", name)
		}
	}
	s3env := dig(services["s3"], "environment").(map[string]any)
	known := knownEnv()
	published := map[string]bool{}
	replicas := 0
	for name, raw := range services {
		if !strings.HasPrefix(name, "disbursementd") {
			continue
		}
		replicas++
		svc := raw.(map[string]any)
		env := map[string]string{}
		for k, v := range svc["environment"].(map[string]any) {
			if !known[k] {
				t.Errorf("%s sets %s, which is no configuration key", name, k)
			}
			env[k] = toString(v)
		}
		if env["DISB_STORE_DRIVER"] != "mysql" || !strings.Contains(env["DISB_STORE_DSN"], "tcp(mysql:3306)") {
			t.Errorf("%s is not pointed at its MySQL: %v", name, env)
		}
		if env["DISB_UPLOADS_BACKEND"] != "s3" || !strings.HasPrefix(env["DISB_UPLOADS_S3_ENDPOINT"], "http://s3:") ||
			env["DISB_UPLOADS_S3_ACCESS_KEY_ID"] != s3env["ROOT_ACCESS_KEY_ID"] || env["DISB_UPLOADS_S3_SECRET_ACCESS_KEY"] != s3env["ROOT_SECRET_ACCESS_KEY"] {
			t.Errorf("%s is not pointed at the s3 service with its credentials: %v", name, env)
		}
		ports := svc["ports"].([]any)
		p := ports[0].(string)
		if published[p] || !strings.HasSuffix(p, ":"+strings.Split(env["DISB_HTTP_ADDR"], ":")[1]) {
			t.Errorf("%s publishes %v for DISB_HTTP_ADDR %s (each replica its own host port)", name, ports, env["DISB_HTTP_ADDR"])
		}
		published[p] = true
		vols := strings.Join(toStrings(svc["volumes"]), " ")
		if !strings.Contains(vols, ":"+filepath.Dir(env["DISB_AUTH_PRIVATE_KEY_FILE"])) {
			t.Errorf("%s: keys volume missing: %s", name, vols)
		}
		t.Run(name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			for k, v := range env {
				t.Setenv(k, v)
			}
			if _, err := config.Load(""); err != nil {
				t.Fatalf("compose environment does not validate: %v", err)
			}
		})
	}
	if replicas < 2 {
		t.Errorf("%d replicas in compose; it should show several", replicas)
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
