package docs

import (
	"crypto/rand"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
)

// webhookCase is one delivery a guide's verify recipe is given, and what
// it must say of it.
type webhookCase struct {
	Name      string            `json:"name"`
	Secret    string            `json:"secret"`
	Headers   map[string]string `json:"headers"`
	Body      string            `json:"body"`
	WantValid bool              `json:"want"`
}

// webhookCases signs a delivery as the service does (domain.SignWebhook,
// which TestSignaturesAgainstStandardWebhooks holds to the standardwebhooks
// package) and spoils it in the ways a receiver must refuse.
func webhookCases(t *testing.T) []webhookCase {
	t.Helper()
	secret := func() domain.WebhookSecret {
		key := make([]byte, domain.WebhookSecretBytes)
		_, _ = rand.Read(key)
		s, _ := domain.NewWebhookSecret(key)
		return s
	}
	current, old, other := secret(), secret(), secret()
	body := `{"type":"report.rejected","timestamp":"2026-11-29T04:00:00Z","data":{"id":"42","numero_credito":"CR-123","status":"rejected","reason_code":"documento_ilegible","reason":"Señal \"ilegible\" ✓"}}`
	id := "evt_188c2f6b7a1e0c00000000000000002a"
	deliver := func(name string, secrets []domain.WebhookSecret, at time.Time, sent string, verifyWith domain.WebhookSecret, want bool) webhookCase {
		sig, ok := domain.SignWebhook(secrets, id, at, []byte(body))
		if !ok {
			t.Fatalf("%s: nothing signed", name)
		}
		return webhookCase{Name: name, Secret: string(verifyWith), Body: sent, WantValid: want, Headers: map[string]string{
			"webhook-id": id, "webhook-timestamp": strconv.FormatInt(at.Unix(), 10), "webhook-signature": sig}}
	}
	now := time.Now()
	return []webhookCase{
		deliver("signed now", []domain.WebhookSecret{current}, now, body, current, true),
		deliver("two signatures while a secret rotates", []domain.WebhookSecret{old, current}, now, body, current, true),
		deliver("the old secret's signature, checked with the old secret", []domain.WebhookSecret{old, current}, now, body, old, true),
		deliver("a body changed in transit", []domain.WebhookSecret{current}, now, strings.Replace(body, "rejected", "accepted", 2), current, false),
		deliver("another endpoint's secret", []domain.WebhookSecret{other}, now, body, current, false),
		deliver("ten minutes old", []domain.WebhookSecret{current}, now.Add(-10*time.Minute), body, current, false),
	}
}

// fencedCode returns every ```lang block of a document that contains
// marker (the Spanish and English halves of the guide each have one).
func fencedCode(t *testing.T, path, lang, marker string) []string {
	t.Helper()
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```"+lang+"\n(.*?)```").FindAllStringSubmatch(repoFile(t, path), -1) {
		if strings.Contains(m[1], marker) {
			blocks = append(blocks, m[1])
		}
	}
	if len(blocks) != 2 {
		t.Fatalf("%s: %d ```%s blocks containing %q, want 2 (es and en)", path, len(blocks), lang, marker)
	}
	return blocks
}

// TestGuideWebhookRecipes runs the partner guide's signature checks, as
// written, in Go, Python and PHP (es and en), on deliveries the service
// signs: each must accept a delivery signed now, with one secret or two
// while a secret rotates, and refuse a changed body, another secret's
// signature and a delivery ten minutes old. (The Node.js recipe is the
// standardwebhooks package's verify, which adapters/webhooks'
// TestSignaturesAgainstStandardWebhooks runs on the service's deliveries.)
func TestGuideWebhookRecipes(t *testing.T) {
	t.Parallel()
	cases := webhookCases(t)
	input := filepath.Join(t.TempDir(), "cases.json")
	raw, _ := json.Marshal(cases)
	if err := os.WriteFile(input, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, lang string, cmd *exec.Cmd) {
		t.Helper()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s recipe: %v\n%s", lang, err, out)
		}
		got := strings.Fields(string(out))
		if len(got) != len(cases) {
			t.Fatalf("%s recipe printed %q, want one true/false per case (%d)", lang, out, len(cases))
		}
		for i, c := range cases {
			if got[i] != map[bool]string{true: "true", false: "false"}[c.WantValid] {
				t.Errorf("%s recipe on %q: %s, want %v", lang, c.Name, got[i], c.WantValid)
			}
		}
	}
	t.Run("Go", func(t *testing.T) { runGoRecipes(t, input, run) })
	t.Run("Python", func(t *testing.T) { runPythonRecipes(t, input, run) })
	t.Run("PHP", func(t *testing.T) { runPHPRecipes(t, input, run) })
}

// recipeRun runs one recipe's program and compares what it printed with
// the cases.
type recipeRun func(t *testing.T, lang string, cmd *exec.Cmd)

func runGoRecipes(t *testing.T, input string, run recipeRun) {
	for i, block := range fencedCode(t, "docs/partner-guide.md", "go", "func verify(secret string") {
		dir := t.TempDir()
		src := "package main\n\nimport (\n\t\"crypto/hmac\"\n\t\"crypto/sha256\"\n\t\"encoding/base64\"\n\t\"encoding/json\"\n\t\"fmt\"\n\t\"net/http\"\n\t\"os\"\n\t\"strconv\"\n\t\"strings\"\n\t\"time\"\n)\n\n" + block + `
func main() {
	raw, _ := os.ReadFile(os.Args[1])
	var cases []struct {
		Secret  string            ` + "`json:\"secret\"`" + `
		Headers map[string]string ` + "`json:\"headers\"`" + `
		Body    string            ` + "`json:\"body\"`" + `
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		panic(err)
	}
	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.Headers {
			h.Set(k, v)
		}
		fmt.Println(verify(c.Secret, h, []byte(c.Body), time.Now()))
	}
}
`
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "run", filepath.Join(dir, "main.go"), input)
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GO111MODULE=on")
		cmd.Dir = dir
		run(t, []string{"Go (es)", "Go (en)"}[i], cmd)
	}
}

func runPythonRecipes(t *testing.T, input string, run recipeRun) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is not installed")
	}
	for i, block := range fencedCode(t, "docs/partner-guide.md", "python", "def verify(secret") {
		script := filepath.Join(t.TempDir(), "verify.py")
		src := block + `
import json, sys
for c in json.load(open(sys.argv[1])):
    print("true" if verify(c["secret"], c["headers"], c["body"].encode()) else "false")
`
		if err := os.WriteFile(script, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		run(t, []string{"Python (es)", "Python (en)"}[i], exec.Command(python, script, input))
	}
}

func runPHPRecipes(t *testing.T, input string, run recipeRun) {
	php, err := exec.LookPath("php")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and php is not installed (.ci/run installs php-cli)")
		}
		t.Skip("php is not installed (Debian: php-cli): the PHP recipe is not run")
	}
	for i, block := range fencedCode(t, "docs/partner-guide.md", "php", "function verify(string $secret") {
		script := filepath.Join(t.TempDir(), "verify.php")
		src := "<?php\n" + block + `
foreach (json_decode(file_get_contents($argv[1]), true) as $c) {
    echo verify($c['secret'], $c['headers'], $c['body']) ? "true\n" : "false\n";
}
`
		if err := os.WriteFile(script, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		run(t, []string{"PHP (es)", "PHP (en)"}[i], exec.Command(php, script, input))
	}
}
