package long

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// qpdfEncrypted is the oracle that names the corpus's encrypted PDFs
// (issue 36): qpdf --is-encrypted exits 0 for an encrypted file, 2 for
// one that is not. Each such file must be refused with file_encrypted;
// every other file is held to what it was held to before.
func qpdfEncrypted(tmp string, f corpusFile) (bool, error) {
	if !strings.HasSuffix(strings.ToLower(f.name), ".pdf") {
		return false, nil
	}
	path := filepath.Join(tmp, "oracle.pdf")
	if err := os.WriteFile(path, f.data, 0o600); err != nil {
		return false, err
	}
	err := exec.Command("qpdf", "--is-encrypted", path).Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &exit) && exit.ExitCode() == 2:
		return false, nil
	}
	return false, fmt.Errorf("qpdf --is-encrypted %s: %w", f.name, err)
}

// qpdfEncryptedDocs: pdfcpu's corpus holds no encrypted PDF (qpdf finds
// none in v0.15.0), so real documents of the corpus are encrypted here
// as a partner's tool would: with a user password or only an owner's
// (permissions), by each algorithm qpdf writes, with object streams once.
// from are the corpus's PDFs; the first of them by name are used.
func qpdfEncryptedDocs(tmp string, from []corpusFile) ([]corpusFile, error) {
	modes := []struct{ name, args string }{
		{"rc4-40-user", "--encrypt secreto dueno 40 --"},
		{"aes-128-user", "--encrypt secreto dueno 128 --use-aes=y --"},
		{"aes-256-user", "--encrypt secreto dueno 256 --"},
		{"aes-256-owner-only", "--encrypt  dueno 256 --print=none --"},
		{"aes-256-object-streams", "--object-streams=generate --encrypt secreto dueno 256 --"},
	}
	if len(from) < len(modes) {
		return nil, fmt.Errorf("%d PDFs to encrypt, want %d", len(from), len(modes))
	}
	var files []corpusFile
	for i, m := range modes {
		src := filepath.Join(tmp, "plain.pdf")
		if err := os.WriteFile(src, from[i].data, 0o600); err != nil {
			return nil, err
		}
		out := filepath.Join(tmp, m.name+".pdf")
		args := append([]string{"--allow-weak-crypto"}, strings.Split(m.args, " ")...)
		if msg, err := exec.Command("qpdf", append(args, src, out)...).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("qpdf %v %s: %v: %s", args, from[i].name, err, msg)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			return nil, err
		}
		base := strings.TrimSuffix(filepath.Base(from[i].name), filepath.Ext(from[i].name))
		files = append(files, corpusFile{"qpdf-encrypted", "qpdf-encrypted/" + base + "." + m.name + ".pdf", data})
	}
	return files, nil
}
