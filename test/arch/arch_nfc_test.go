package arch

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNFCLivesInTheDomain: Unicode NFC is a rule of the domain (a report's
// identity depends on it; issue 34), so the domain imports the normaliser
// and no adapter does: an adapter that put text in NFC again would state
// the rule twice, and a surface that forgot would store another form.
func TestNFCLivesInTheDomain(t *testing.T) {
	const norm = "golang.org/x/text/unicode/norm"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../../domain", "../../adapters/...", "../../ports/...", "../../cmd/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	inDomain := false
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		uses := strings.Contains(" "+imports+" ", " "+norm+" ")
		switch {
		case pkg == "github.com/lender/disbursementd/domain":
			inDomain = uses
		case uses:
			t.Errorf("%s imports %s: NFC is domain.NFC's (and the catalogue's, as it maps a report)", pkg, norm)
		}
	}
	if !inDomain {
		t.Errorf("domain does not import %s: the check would prove nothing", norm)
	}
}
