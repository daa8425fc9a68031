package testkit

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// module is the service's module path, as go.mod declares it.
const module = "github.com/lender/disbursementd"

// repoRoot is the directory of the service's go.mod, found from the
// working directory up when the test binary starts (before any test
// changes directory): a test runs in its package's directory, at any
// depth below it; test/load and the other modules of their own stop the
// walk at their own go.mod, which names another module.
var repoRoot, repoRootErr = findRepoRoot()

func findRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(b, []byte("module "+module+"\n")) {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", os.ErrNotExist
		}
		dir = up
	}
}

// RepoRoot is the repository's top directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	if repoRootErr != nil {
		t.Fatalf("no go.mod of %s above the working directory: %v", module, repoRootErr)
	}
	return repoRoot
}

// RepoPath is the path of rel (slash-separated, from the repository's top
// directory).
func RepoPath(t testing.TB, rel string) string {
	t.Helper()
	return filepath.Join(RepoRoot(t), filepath.FromSlash(rel))
}
