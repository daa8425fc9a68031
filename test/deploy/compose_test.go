package deploy

import (
	"context"
	"os"
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	mysqldrv "github.com/go-sql-driver/mysql"
)

// loadCompose loads deploy/docker-compose.yml with the Compose
// specification's own loader, which validates it against the schema and
// checks its references (services, volumes, dependencies).
func loadCompose(t *testing.T, profiles ...string) *types.Project {
	t.Helper()
	opts, err := cli.NewProjectOptions([]string{repoPath("deploy/docker-compose.yml")},
		cli.WithWorkingDirectory(repoPath("deploy")), cli.WithName("disbursementd"), cli.WithProfiles(profiles))
	if err != nil {
		t.Fatal(err)
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("docker compose would refuse deploy/docker-compose.yml: %v", err)
	}
	return p
}

// composeEnv is a service's environment as the container gets it.
func composeEnv(s types.ServiceConfig) map[string]string {
	env := map[string]string{}
	for k, v := range s.Environment {
		if v != nil {
			env[k] = *v
		}
	}
	return env
}

// secretFiles maps the path of each secret inside s's container
// (/run/secrets/<target>) to its file on the host.
func secretFiles(t *testing.T, p *types.Project, s types.ServiceConfig) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, ref := range s.Secrets {
		sec, ok := p.Secrets[ref.Source]
		if !ok || sec.File == "" {
			t.Fatalf("%s uses secret %s, which names no file", s.Name, ref.Source)
		}
		target := ref.Target
		if target == "" {
			target = ref.Source
		}
		if !strings.HasPrefix(target, "/") {
			target = "/run/secrets/" + target
		}
		out[target] = sec.File
	}
	return out
}

// readSecrets resolves each DISB_*_FILE of env to what the service reads:
// the content of the secret mounted there (the value, for the checks)
// and its host path (for the service's own loader).
func readSecrets(t *testing.T, env, files map[string]string) (values, onHost map[string]string) {
	t.Helper()
	values, onHost = map[string]string{}, map[string]string{}
	for k, v := range env {
		onHost[k] = v
		name, ok := strings.CutSuffix(k, "_FILE")
		if !ok || !strings.HasPrefix(v, "/run/secrets/") {
			values[k] = v
			continue
		}
		host, ok := files[v]
		if !ok {
			t.Errorf("%s=%s: no secret is mounted there", k, v)
			continue
		}
		b, err := os.ReadFile(host)
		if err != nil {
			t.Fatal(err)
		}
		values[name], onHost[k] = strings.TrimSuffix(string(b), "\n"), host
	}
	return values, onHost
}

// TestComposeFile: the compose file loads and validates; two replicas run
// on the MariaDB it ships (the server the suite tests: it used to be
// mysql:8.4, which nothing tested) and the S3 server, with the database
// user and the bucket credentials the servers are given; every
// long-running service restarts; each replica mounts the keys read-only
// where its key file is, publishes its own port, and its environment is
// one the service accepts.
func TestComposeFile(t *testing.T) {
	p := loadCompose(t)
	db, err := p.GetService("mariadb")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(db.Image, "mariadb:10.11") {
		t.Errorf("the database service runs %s; the suite tests MariaDB 10.11", db.Image)
	}
	s3, err := p.GetService("s3")
	if err != nil {
		t.Fatal(err)
	}
	dbEnv, s3Env := composeEnv(db), composeEnv(s3)
	replicas, published := 0, map[string]bool{}
	for _, s := range p.Services {
		if s.Name != "bucket" && (s.Restart == "" || s.Restart == types.RestartPolicyNo) {
			t.Errorf("%s has no restart policy: after a crash or a reboot it stays down", s.Name)
		}
		if !strings.HasPrefix(s.Name, "disbursementd") {
			continue
		}
		replicas++
		// The image has no shell: the health check is the binary's probe
		// command (TestProbeAsksReadyz in test/ tests what it does).
		if hc := s.HealthCheck; hc == nil || strings.Join(hc.Test, " ") != "CMD /usr/local/bin/disbursementd probe" {
			t.Errorf("%s has no health check running the binary's probe: %+v", s.Name, s.HealthCheck)
		}
		env, onHost := readSecrets(t, composeEnv(s), secretFiles(t, p, s))
		for _, k := range []string{"DISB_STORE_DSN", "DISB_UPLOADS_S3_SECRET_ACCESS_KEY"} {
			if _, plain := composeEnv(s)[k]; plain {
				t.Errorf("%s sets %s in its environment; it is a secret: mount it and set %s_FILE", s.Name, k, k)
			}
		}
		dsn, err := mysqldrv.ParseDSN(env["DISB_STORE_DSN"])
		if err != nil || env["DISB_STORE_DRIVER"] != "mysql" || dsn.Addr != "mariadb:3306" || dsn.User != dbEnv["MARIADB_USER"] ||
			dsn.Passwd != dbEnv["MARIADB_PASSWORD"] || dsn.DBName != dbEnv["MARIADB_DATABASE"] {
			t.Errorf("%s is not pointed at the mariadb service with its user and database: %s (%v)", s.Name, env["DISB_STORE_DSN"], err)
		}
		if dep, ok := s.DependsOn["mariadb"]; !ok || dep.Condition != types.ServiceConditionHealthy {
			t.Errorf("%s does not wait for a healthy mariadb", s.Name)
		}
		if env["DISB_UPLOADS_BACKEND"] != "s3" || !strings.HasPrefix(env["DISB_UPLOADS_S3_ENDPOINT"], "http://s3:") ||
			env["DISB_UPLOADS_S3_ACCESS_KEY_ID"] != s3Env["ROOT_ACCESS_KEY_ID"] || env["DISB_UPLOADS_S3_SECRET_ACCESS_KEY"] != s3Env["ROOT_SECRET_ACCESS_KEY"] {
			t.Errorf("%s is not pointed at the s3 service with its credentials", s.Name)
		}
		keys := false
		for _, v := range s.Volumes {
			if v.Target == path.Dir(env["DISB_AUTH_PRIVATE_KEY_FILE"]) && v.ReadOnly && strings.HasSuffix(v.Source, "/deploy/keys") {
				keys = true
			}
		}
		if !keys {
			t.Errorf("%s does not mount deploy/keys read-only at %s", s.Name, path.Dir(env["DISB_AUTH_PRIVATE_KEY_FILE"]))
		}
		for _, port := range s.Ports {
			if published[port.Published] || strconv.Itoa(int(port.Target)) != env["DISB_HTTP_ADDR"][strings.LastIndex(env["DISB_HTTP_ADDR"], ":")+1:] {
				t.Errorf("%s publishes %s:%d for DISB_HTTP_ADDR %s (each replica its own host port)", s.Name, port.Published, port.Target, env["DISB_HTTP_ADDR"])
			}
			published[port.Published] = true
		}
		t.Run(s.Name, func(t *testing.T) { checkEnvLoads(t, onHost) })
	}
	if replicas < 2 {
		t.Errorf("%d replicas in compose; it should show several", replicas)
	}
}
