package gormstore_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
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
	if err == nil {
		root, err = filepath.EvalSymlinks(root) // WalkDir does not follow a linked root
	}
	if err != nil {
		t.Fatal(err)
	}
	// The strings that may name it, each in its file: the DSN's level,
	// the word Gathers looks for, and the connection's check.
	allowed := map[string]bool{
		"adapters/gormstore/dsn.go\x00synchronous(FULL)":               true,
		"adapters/gormstore/internal/walvfs/gathers.go\x00synchronous": true,
		// requireFullSync reads the level, and says so when it refuses one.
		"adapters/gormstore/sqlite.go\x00PRAGMA main.synchronous":                                                      true,
		"adapters/gormstore/sqlite.go\x00sqlite connection runs synchronous %d; the store needs FULL (2) or EXTRA (3)": true,
	}
	seen := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil // removed by a stage running beside (generated clients), or not ours to read
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") ||
				d.Name() == "docs" || d.Name() == "node_modules" || d.Name() == "testdata") {
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
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			seen++
			if strings.Contains(strings.ToLower(string(b)), "synchronous") {
				t.Errorf("%s names synchronous", rel)
			}
		case strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go"):
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			seen++
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				v, err := strconv.Unquote(lit.Value) // "\x73ynchronous" is the word too
				if err != nil {
					v = lit.Value
				}
				if strings.Contains(strings.ToLower(v), "synchronous") && !allowed[rel+"\x00"+v] {
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
