package test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCoreStaysPure fails when domain or ports reach infrastructure: the
// core must not import GORM, viper, chi, jwx or net/http, directly or not.
func TestCoreStaysPure(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../domain/...", "../ports/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	forbidden := []string{"gorm.io/", "github.com/spf13/viper", "github.com/go-chi/", "github.com/lestrrat-go/", "net/http", "database/sql",
		"github.com/lender/disbursementd/adapters", "github.com/lender/disbursementd/config"}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list returned %d packages; the check would prove nothing", len(deps))
	}
	for _, dep := range deps {
		for _, f := range forbidden {
			if strings.HasPrefix(dep, f) {
				t.Errorf("the core depends on %s", dep)
			}
		}
	}
}

// TestAdaptersDoNotImportEachOther keeps the hexagon's adapters apart,
// and config for cmd/ only.
func TestAdaptersDoNotImportEachOther(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../adapters/...", "../domain/...", "../ports/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const mod = "github.com/lender/disbursementd/"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := f[0]
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, mod+"config") {
				t.Errorf("%s imports config; only cmd/ may", pkg)
			}
			if strings.HasPrefix(pkg, mod+"adapters/") && strings.HasPrefix(imp, mod+"adapters/") {
				t.Errorf("adapter %s imports adapter %s", pkg, imp)
			}
		}
	}
}
