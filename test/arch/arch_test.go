package arch

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// root is the repository's top directory, from this package's.
const root = "../.."

// TestCoreStaysPure fails when domain or ports reach infrastructure: the
// core must not import GORM, viper, chi, jwx or net/http, directly or not.
func TestCoreStaysPure(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../domain/...", "../../ports/...").CombinedOutput()
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

// TestFileChecksStandAlone: domain/filecheck needs the standard library
// only (unsafe included, for its windowing) and not domain: domain
// imports it and maps its findings, never the other way, and domain
// itself reaches no module package but its own subpackages and
// domainAllowed.
func TestFileChecksStandAlone(t *testing.T) {
	const mod = "github.com/lender/disbursementd/"
	nonStd := func(pkg string) []string {
		t.Helper()
		out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		return strings.Fields(string(out))
	}
	deps := nonStd("../../domain/filecheck")
	if len(deps) != 1 || deps[0] != mod+"domain/filecheck" {
		t.Errorf("domain/filecheck reaches beyond the standard library: %v", deps)
	}
	deps = nonStd("../../domain")
	if !slices.Contains(deps, mod+"domain/filecheck") {
		t.Fatalf("domain does not import domain/filecheck (deps %v): the check would prove nothing", deps)
	}
	for _, dep := range deps {
		if dep != mod+"domain" && !strings.HasPrefix(dep, mod+"domain/") && !slices.Contains(domainAllowed, dep) {
			t.Errorf("domain reaches %s, outside the standard library, its own subpackages and %v", dep, domainAllowed)
		}
	}
}

// domainAllowed are the packages outside the standard library that domain
// may reach: Unicode NFC (domain.NFC; a report's identity depends on it,
// so it is a rule of the domain, not of one adapter) and what it needs.
var domainAllowed = []string{"golang.org/x/text/unicode/norm", "golang.org/x/text/transform"}

// TestAdaptersDoNotImportEachOther keeps the hexagon's adapters apart,
// and config for cmd/ only. An adapter's own internal packages are part
// of it (httpapi's JSON scanner, adapters/httpapi/internal/jsonscan).
func TestAdaptersDoNotImportEachOther(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../../adapters/...", "../../domain/...", "../../ports/...").CombinedOutput()
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
			if strings.HasPrefix(pkg, mod+"adapters/") && strings.HasPrefix(imp, mod+"adapters/") && !strings.HasPrefix(imp, pkg+"/internal/") {
				t.Errorf("adapter %s imports adapter %s", pkg, imp)
			}
		}
	}
}

// TestHTTPAdapterSeesOnlyPorts: the HTTP adapter calls the core through
// the interfaces it declares; it names no use-case type of package ports
// (a struct with methods: Reports, Auth, ...), only the ports' interfaces
// and plain data types.
func TestHTTPAdapterSeesOnlyPorts(t *testing.T) {
	fset := token.NewFileSet()
	parse := func(dir string) []*ast.File {
		t.Helper()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var files []*ast.File
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		return files
	}
	// The use cases: the struct types of ports that have methods and a
	// constructor New<Type> (every use case is built by one that checks
	// its dependencies). A result or argument type with a helper method
	// (SweepReport, LoginAttempt) is a value the adapter may name.
	structs, methods, constructors := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, f := range parse("../../ports") {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						if _, isStruct := ts.Type.(*ast.StructType); isStruct {
							structs[ts.Name.Name] = true
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil && strings.HasPrefix(d.Name.Name, "New") {
					constructors[strings.TrimPrefix(d.Name.Name, "New")] = true
				}
				if d.Recv != nil && len(d.Recv.List) == 1 {
					typ := d.Recv.List[0].Type
					if star, ok := typ.(*ast.StarExpr); ok {
						typ = star.X
					}
					if id, ok := typ.(*ast.Ident); ok {
						methods[id.Name] = true
					}
				}
			}
		}
	}
	useCases := map[string]bool{}
	for name := range methods {
		if structs[name] && constructors[name] && ast.IsExported(name) {
			useCases[name] = true
		}
	}
	for _, want := range []string{"Reports", "Auth", "Login", "Users", "Sweep"} {
		if !useCases[want] {
			t.Fatalf("use case %s not found in ports (found %v): the check would prove nothing", want, useCases)
		}
	}
	for _, f := range parse("../../adapters/httpapi") {
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "ports" && useCases[sel.Sel.Name] {
				t.Errorf("%s: httpapi names the use case ports.%s; declare the operation it needs as an interface", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}

// TestProductionFilesStayShort: no production Go file (outside test/, no
// _test.go) is over 300 lines, the size the fourth review found every
// file under and a reader takes in one sitting; a file that grows past it
// is split by what its parts do (ports/auth_throttle.go,
// domain/constraints.go and app/open.go were).
func TestProductionFilesStayShort(t *testing.T) {
	const most = 300
	seen := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == root+"/test" || strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		seen++
		if n := strings.Count(string(b), "\n"); n > most {
			t.Errorf("%s: %d lines, more than %d: split it by what its parts do", strings.TrimPrefix(path, root+"/"), n, most)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 50 {
		t.Fatalf("only %d production files seen: the walk proves nothing", seen)
	}
}
