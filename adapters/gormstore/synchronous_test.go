package gormstore_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNothingLowersSynchronous: SQLiteDSN sets synchronous FULL, which
// walvfs needs on every connection that gathers its WAL: at NORMAL a
// commit's frames are published before they are written, and another
// connection reads (and checkpoints) what was in the file before. walvfs
// reads the level from the URI, not from the connection, so lowering it
// later (PRAGMA synchronous) would lose commits silently (the fourth
// review of walvfs showed it). No string in the service's code or
// migrations may name the pragma but SQLiteDSN's and walvfs's own: a
// change that needs another level must first change how walvfs decides.
func TestNothingLowersSynchronous(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{
		"adapters/gormstore/dsn.go":                    true,
		"adapters/gormstore/internal/walvfs/walvfs.go": true,
	}
	seen := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "docs" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if rel != "." {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module (test/load): not the service
				}
			}
			return nil
		}
		switch {
		case strings.HasSuffix(rel, ".sql"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			seen++
			if strings.Contains(strings.ToLower(string(b)), "synchronous") {
				t.Errorf("%s names synchronous", rel)
			}
		case strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go"):
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			seen++
			if allowed[rel] {
				return nil
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Contains(strings.ToLower(lit.Value), "synchronous") {
					t.Errorf("%s: string %s names synchronous: walvfs gathers a connection's WAL only at FULL or EXTRA, read from SQLiteDSN's URI", rel, lit.Value)
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 100 {
		t.Fatalf("read %d files under %s; want the whole module", seen, root)
	}
}
