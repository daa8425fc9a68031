package docs

import (
	"bytes"
	"encoding/base64"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/httpapi"
	"github.com/lender/disbursementd/cmd/disbursementd/app"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

// root is the repository's top directory, from this package's.
const root = "../.."

// The documentation's checkable claims, checked: each test reads the
// documents as a new user would and compares what they say with the code.
// They look for the few patterns a claim is written in, never for whole
// sentences, so prose can change freely around them.

// ourDocs are the documents whose claims these tests hold to the code.
var ourDocs = []string{"README.md", "SECURITY.md", "CHANGELOG.md",
	"docs/decisions.md", "docs/operator-guide.md", "docs/partner-guide.md", "docs/scaling.md"}

// repoFile reads a file of the repository (tests run in test/docs).
func repoFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestDocsGoVersion: every "Go 1.x.y" the README names is go.mod's go line.
func TestDocsGoVersion(t *testing.T) {
	m := regexp.MustCompile(`(?m)^go (\S+)\s*$`).FindStringSubmatch(repoFile(t, "go.mod"))
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	mentions := regexp.MustCompile(`\bGo (\d+\.\d+(?:\.\d+)?)\b`).FindAllStringSubmatch(repoFile(t, "README.md"), -1)
	if len(mentions) == 0 {
		t.Fatal("README.md names no Go version")
	}
	for _, v := range mentions {
		if v[1] != m[1] {
			t.Errorf("README.md says Go %s; go.mod says go %s", v[1], m[1])
		}
	}
}

// TestDocsConfigTable: the README's key table is config.MarkdownTable()
// as it is now: every key, its variable and its default.
func TestDocsConfigTable(t *testing.T) {
	readme := repoFile(t, "README.md")
	const begin, end = "<!-- config table: begin", "<!-- config table: end -->"
	i, j := strings.Index(readme, begin), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q … %q section", begin, end)
	}
	table := readme[i:j]
	table = table[strings.Index(table, "\n")+1:] // after the begin marker's line
	if want := config.MarkdownTable(); table != want {
		t.Errorf("README.md's configuration table differs from config.MarkdownTable(); paste the output of\n"+
			"  go test ./config/ -run TestMarkdownTable -v -table\nbetween the markers. Want:\n%s", want)
	}
	for _, key := range config.Keys() { // the same claim, said another way
		if !strings.Contains(table, "| `"+key+"` | `"+config.EnvName(key)+"` |") {
			t.Errorf("README.md's configuration table lacks %s (%s)", key, config.EnvName(key))
		}
	}
}

// TestDocsExpiresIn: every expires_in the documents and the OpenAPI
// document give is 86400, what a token of the default auth.token_ttl
// answers (TestActivationTakesEffectAtOnce checks the service). The
// changelog may name the values of earlier releases.
func TestDocsExpiresIn(t *testing.T) {
	number := regexp.MustCompile(`expires_in\W{0,6}?(\d+)`)
	found := 0
	docs := slices.DeleteFunc(slices.Clone(ourDocs), func(p string) bool { return p == "CHANGELOG.md" })
	for _, path := range append(docs, "cmd/disbursementd/app/openapi.yaml") {
		for _, m := range number.FindAllStringSubmatch(repoFile(t, path), -1) {
			found++
			if m[1] != "86400" {
				t.Errorf("%s: expires_in %s; the service answers 86400", path, m[1])
			}
		}
	}
	if found < 3 {
		t.Fatalf("only %d expires_in values found: the check would prove nothing", found)
	}
}

// TestDocsUsersAddPasswords: every password piped into a users add
// example is one that users add accepts (domain.CheckNewPassword), and a comment
// on such a line that names an exit code for an existing user names the
// real one.
func TestDocsUsersAddPasswords(t *testing.T) {
	piped := []*regexp.Regexp{
		regexp.MustCompile(`echo\s+(['"])(.*?)['"]\s*\|.*users add`),
		regexp.MustCompile(`users add.*<<<\s*(['"])(.*?)['"]`),
	}
	exitComment := regexp.MustCompile(`users add.*#.*?\b(\d)\b[^#]*\bexist`)
	found := 0
	for _, path := range append(slices.Clone(ourDocs), "deploy/docker-compose.yml") {
		for n, line := range strings.Split(repoFile(t, path), "\n") {
			if !strings.Contains(line, "users add") {
				continue
			}
			for _, re := range piped {
				m := re.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				found++
				if err := domain.CheckNewPassword(m[2]); err != nil {
					t.Errorf("%s:%d: password %q is %d bytes; users add refuses it: %v", path, n+1, m[2], len(m[2]), err)
				}
			}
			if m := exitComment.FindStringSubmatch(line); m != nil && m[1] != strconv.Itoa(app.ExitExists) {
				t.Errorf("%s:%d: says exit %s for an existing user; users add exits %d", path, n+1, m[1], app.ExitExists)
			}
		}
	}
	if found < 3 {
		t.Fatalf("only %d users add examples with a password found: the check would prove nothing", found)
	}
}

// TestDocsExitCodes: the README's table of exit codes is the CLI's.
func TestDocsExitCodes(t *testing.T) {
	readme := repoFile(t, "README.md")
	i := strings.Index(readme, "| exit code | meaning |")
	if i < 0 {
		t.Fatal("README.md has no exit code table")
	}
	row := regexp.MustCompile(`^\| (\d+) \| (.+) \|$`)
	got := map[int]string{}
	for _, line := range strings.Split(readme[i:], "\n")[2:] {
		m := row.FindStringSubmatch(line)
		if m == nil {
			break
		}
		got[int(m[1][0]-'0')] = m[2]
	}
	want := map[int]string{app.ExitOK: "ok", app.ExitFailure: "failed", app.ExitUsage: "usage", app.ExitExists: "exists"}
	if len(got) != len(want) {
		t.Errorf("README.md lists exit codes %v; the CLI has %v", got, want)
	}
	for code, word := range want {
		if !strings.Contains(got[code], word) {
			t.Errorf("README.md: exit code %d is %q; want it to say %q", code, got[code], word)
		}
	}
}

// TestDocsCitedTestsExist: every test the documents cite (`TestX`,
// `TestX/sub_test`, `TestX/prefix*`, `FuzzX`) exists: the function in some
// _test.go file, and each subtest name as a string there (go test turns
// its spaces into underscores).
func TestDocsCitedTestsExist(t *testing.T) {
	var sources strings.Builder
	funcs := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)\w+)\(`)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") && !strings.Contains(filepath.ToSlash(path), "test/storetest/") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sources.Write(data)
		for _, m := range decl.FindAllStringSubmatch(string(data), -1) {
			funcs[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	src := sources.String()
	cited := regexp.MustCompile("`((?:Test|Fuzz)[A-Z][^`]*)`")
	count := 0
	for _, path := range ourDocs {
		for _, m := range cited.FindAllStringSubmatch(repoFile(t, path), -1) {
			count++
			parts := strings.Split(m[1], "/")
			if !funcs[parts[0]] {
				t.Errorf("%s cites %s: no func %s in any _test.go", path, m[1], parts[0])
				continue
			}
			for _, sub := range parts[1:] {
				if !subtestNamed(src, sub) {
					t.Errorf("%s cites %s: no subtest named %q", path, m[1], sub)
				}
			}
		}
	}
	if count < 40 {
		t.Fatalf("only %d tests cited: the check would prove nothing", count)
	}
}

// subtestNamed reports whether src holds a string that go test would
// name sub: its underscores spaces (or as written), whole, or as a prefix
// when sub ends with *.
func subtestNamed(src, sub string) bool {
	prefix := strings.HasSuffix(sub, "*")
	sub = strings.TrimSuffix(sub, "*")
	for _, name := range []string{strings.ReplaceAll(sub, "_", " "), sub} {
		quoted := `"` + name
		if !prefix {
			quoted += `"`
		}
		if strings.Contains(src, quoted) {
			return true
		}
	}
	return false
}

// TestDocsTryItReport: the README's try-it report, with its PDF and
// today's date, is a valid report, and the PDF passes the file checks
// (contract §7) as a report's file would.
func TestDocsTryItReport(t *testing.T) {
	readme := repoFile(t, "README.md")
	m := regexp.MustCompile(`PDF=\$\(printf '([^']*)' \| base64`).FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("README.md: no PDF=$(printf '…' | base64 …) line")
	}
	pdf := printfBytes(m[1])
	f, err := domain.NewFileFromBytes(pdf, fixture.FileRules())
	if err != nil {
		t.Fatalf("README.md's PDF %q is refused: %v", pdf, err)
	}
	if f.Ext != "pdf" {
		t.Fatalf("README.md's PDF is read as %s", f.Ext)
	}
	body := regexp.MustCompile(`(?s)-d '(\{\n.*?\n\s*\})'`).FindStringSubmatch(readme)
	if body == nil {
		t.Fatal("README.md: no multi-line -d '{…}' report body")
	}
	now := time.Now().UTC()
	text := strings.NewReplacer(`'"$(date -u +%F)"'`, now.Format("2006-01-02"),
		`'"$PDF"'`, base64.StdEncoding.EncodeToString(pdf)).Replace(body[1])
	members, err := httpapi.DecodeObject([]byte(text), 256)
	if err != nil {
		t.Fatalf("README.md's report is not JSON the service reads: %v\n%s", err, text)
	}
	rep, err := domain.DefaultCatalogue().MapReport(members, fixture.FileRules(), now)
	if err != nil {
		t.Fatalf("README.md's report is refused: %v", err)
	}
	if rep.File == nil {
		t.Fatal("README.md's report carries no file")
	}
}

// printfBytes is what the shell's printf makes of a format without
// arguments: %% is %, and \n, \r, \t, \\ are their bytes.
func printfBytes(format string) []byte {
	var b bytes.Buffer
	for i := 0; i < len(format); i++ {
		c := format[i]
		if i+1 < len(format) && (c == '%' && format[i+1] == '%' || c == '\\') {
			i++
			switch format[i] {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			default:
				c = format[i]
			}
		}
		b.WriteByte(c)
	}
	return b.Bytes()
}
