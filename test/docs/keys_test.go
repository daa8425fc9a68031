package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// exampleKey is the form of every example Idempotency-Key: the report's
// credit number and a version, as the guide advises.
var exampleKey = regexp.MustCompile(`\bCR-\d{4}-\d{4}-v\d+\b`)

// TestDocsIdempotencyKeysUnique: every example Idempotency-Key of the
// README, docs/*.md, docs/examples and the OpenAPI document belongs to one
// example report (contract §10): a partner who follows one document and
// then another never gets idempotency_key_reused. A key lives in one
// example (one fenced block of a Markdown document, one example file, or
// the OpenAPI document), and that example's report has the key's credit
// number; every literal key a curl or fetch example sends has the form
// the check reads. The guide's Go and Python blocks are files of
// docs/examples (TestDocsPartnerGuideV1 holds them equal), counted once.
func TestDocsIdempotencyKeysUnique(t *testing.T) {
	sources := map[string]string{
		"README.md":                          repoFile(t, "README.md"),
		"cmd/disbursementd/app/openapi.yaml": repoFile(t, "cmd/disbursementd/app/openapi.yaml"),
	}
	mds, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, p := range mds {
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		sources[rel] = repoFile(t, rel)
	}
	err := filepath.WalkDir(filepath.Join(root, "docs", "examples"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		sources[filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	guide := "docs/partner-guide.md"
	for _, embedded := range []string{"docs/examples/v1client/main.go", "docs/examples/v1python/report.py"} {
		sources[guide] = strings.Replace(sources[guide], sources[embedded], "", 1)
	}

	sent := regexp.MustCompile(`Idempotency-Key: ([^'"\s\\]+)|"Idempotency-Key": "([^"]+)"`)
	sites := map[string]map[string]bool{} // key → the examples it is in
	for path, text := range sources {
		for i, block := range examples(path, text) {
			for _, m := range sent.FindAllStringSubmatch(block, -1) {
				if v := m[1] + m[2]; !strings.HasPrefix(v, "$") && !exampleKey.MatchString(v) {
					t.Errorf("%s: the example key %q is not of the form CR-NNNN-NNNN-vN, so this check cannot see it", path, v)
				}
			}
			for _, key := range exampleKey.FindAllString(block, -1) {
				site := path
				if strings.HasSuffix(path, ".md") {
					site += " block " + strconv.Itoa(i+1)
				}
				if sites[key] == nil {
					sites[key] = map[string]bool{}
				}
				sites[key][site] = true
				credit := key[:strings.LastIndex(key, "-v")]
				if !regexp.MustCompile(regexp.QuoteMeta(credit) + `([^-0-9]|$)`).MatchString(block) {
					t.Errorf("%s: the example with key %s has no report of credit number %s", site, key, credit)
				}
			}
		}
	}
	if len(sites) < 6 {
		t.Fatalf("only %d example keys found: the check would prove nothing", len(sites))
	}
	for key, in := range sites {
		if len(in) > 1 {
			var list []string
			for s := range in {
				list = append(list, s)
			}
			sort.Strings(list)
			t.Errorf("the example key %s is used by %d examples: %s", key, len(in), strings.Join(list, ", "))
		}
	}
}

// examples splits a document into its examples: a Markdown document's
// fenced blocks, or any other file whole.
func examples(path, text string) []string {
	if !strings.HasSuffix(path, ".md") {
		return []string{text}
	}
	var out []string
	parts := strings.Split(text, "\n```")
	for i := 1; i < len(parts); i += 2 {
		out = append(out, parts[i])
	}
	return out
}
