package arch

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOneAnswerPerError fails when code in adapters/httpapi answers an
// error without answerOf: a status read from the status table, a
// challenge or Retry-After set, or an error status written, anywhere but
// answerOf and the encoders that write what it returns. The answers that
// are no error's (unknown route or method, a probe, a panic) are listed
// here by file and status, so a new one is a decision, not a slip.
func TestOneAnswerPerError(t *testing.T) {
	files, err := filepath.Glob("../../adapters/httpapi/*.go")
	if err != nil || len(files) < 10 {
		t.Fatalf("glob: %v (%d files): the check would prove nothing", err, len(files))
	}
	// Where a status may be written with WriteHeader: the two writers, the
	// status recorder and the held answer (which keeps what they write
	// until the request's places are given back).
	writeHeader := []string{"probes.go", "problem.go", "middleware.go", "heldanswer.go"}
	// The non-error answers and the constant statuses they may write.
	fixed := map[string][]string{
		"server.go":     {"StatusMethodNotAllowed", "StatusNotFound"},
		"routes.go":     {"StatusMethodNotAllowed", "StatusNotFound"},
		"probes.go":     {"StatusInternalServerError", "StatusServiceUnavailable"},
		"middleware.go": {"StatusInternalServerError"},
	}
	statusArg := map[string]int{"writeJSON": 1, "writeRaw": 1, "writeProblem": 2}
	fset := token.NewFileSet()
	calls := map[string]int{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		name := filepath.Base(path)
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if strings.Contains(n.Value, "Error interno; intente") && name != "answer.go" {
					t.Errorf("%s: the internal error's message is written again; use msgInternal", fset.Position(n.Pos()))
				}
				if (n.Value == `"WWW-Authenticate"` || n.Value == `"Retry-After"`) && name != "answer.go" {
					t.Errorf("%s: %s set outside answerOf's headers", fset.Position(n.Pos()), n.Value)
				}
			case *ast.CallExpr:
				fn := callName(n)
				calls[fn]++
				pos := fset.Position(n.Pos())
				switch fn {
				case "statusOf":
					if name != "answer.go" {
						t.Errorf("%s: statusOf called outside answerOf", pos)
					}
				case "WriteHeader":
					if !slices.Contains(writeHeader, name) {
						t.Errorf("%s: WriteHeader outside the writers (writeRaw, sendProblem)", pos)
					}
				case "Error", "NewEncoder":
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && (isPkg(sel, "http") && fn == "Error" || isPkg(sel, "json")) {
						t.Errorf("%s: %s.%s writes an answer beside the writers", pos, sel.X.(*ast.Ident).Name, fn)
					}
				}
				i, ok := statusArg[fn]
				if !ok || len(n.Args) <= i {
					return true
				}
				switch st := n.Args[i].(type) {
				case *ast.SelectorExpr:
					if id, ok := st.X.(*ast.Ident); ok && id.Name == "http" {
						if strings.HasPrefix(st.Sel.Name, "StatusOK") || st.Sel.Name == "StatusCreated" || st.Sel.Name == "StatusAccepted" ||
							slices.Contains(fixed[name], st.Sel.Name) {
							return true
						}
						t.Errorf("%s: %s writes %s without answerOf", pos, fn, st.Sel.Name)
						return true
					}
					if st.Sel.Name == "status" { // an errorAnswer's status, or a reply that has it
						return true
					}
				case *ast.Ident:
					if name == "probes.go" && st.Name == "status" { // writeJSON's and writeRaw's own parameter
						return true
					}
				}
				t.Errorf("%s: %s writes a status that does not come from answerOf", pos, fn)
			}
			return true
		})
	}
	if calls["answerOf"] < 5 || calls["writeJSON"] < 5 {
		t.Fatalf("found %d answerOf and %d writeJSON calls: the check would prove nothing", calls["answerOf"], calls["writeJSON"])
	}
}

func callName(c *ast.CallExpr) string {
	switch f := c.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

func isPkg(sel *ast.SelectorExpr, pkg string) bool {
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}

// TestCoreSpeaksInKinds: OAuth's wire words are the HTTP adapter's; the
// core returns kinds (domain.InvalidClient, Unavailable, Throttled) and
// httpapi's status table words them per surface.
func TestCoreSpeaksInKinds(t *testing.T) {
	words := []string{`"invalid_client"`, `"temporarily_unavailable"`, `"slow_down"`, `"unsupported_grant_type"`, `"server_error"`}
	checked := 0
	for _, dir := range []string{"../../domain", "../../ports"} {
		files, err := filepath.Glob(dir + "/*.go")
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for _, w := range words {
				if strings.Contains(string(data), w) {
					t.Errorf("%s builds the wire word %s; return a kind and let httpapi word it", path, w)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("read %d files: the check would prove nothing", checked)
	}
}

// TestCLIClassifiesByKind: the CLI's exit codes come from one table read
// by the outermost kind (app.exitCode); errors.Is on a domain kind would
// see through a 503 to the NotFound it wraps.
func TestCLIClassifiesByKind(t *testing.T) {
	files, err := filepath.Glob("../../cmd/disbursementd/app/*.go")
	if err != nil || len(files) < 10 {
		t.Fatalf("glob: %v (%d files): the check would prove nothing", err, len(files))
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "errors.Is(") && strings.Contains(line, "domain.Err") {
				t.Errorf("%s:%d: classifies a domain kind with errors.Is; use exitCode or domain.IsKind", path, n+1)
			}
		}
	}
}
