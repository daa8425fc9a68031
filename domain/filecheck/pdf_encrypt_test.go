package filecheck

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// encryptDict is an encryption dictionary as Acrobat writes one (RC4, 128
// bits); the checks only need to see that a trailer names it.
const encryptDict = "<< /Filter /Standard /V 2 /R 3 /Length 128 /O <00> /U <00> /P -3904 >>"

// TestPDFEncrypted: issue 36. A PDF whose trailer, or whose xref stream's
// dictionary, has an /Encrypt entry opens only with a password (or keeps
// its strings and streams as ciphertext): it is refused as Encrypted,
// scripts allowed or not, however the name is spelled. The name inside
// stream data, or an encryption dictionary that no trailer names, is not
// encryption.
func TestPDFEncrypted(t *testing.T) {
	t.Parallel()
	classic := func(trailer string) []byte {
		w := newPDFWriter("1.4")
		w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
		w.obj(2, "<< /Type /Pages /Kids [] /Count 0 >>")
		w.obj(3, encryptDict)
		w.xref(" /Root 1 0 R" + trailer + " /ID [ <01> <01> ]")
		return w.bytes()
	}
	xrefStream := func() []byte {
		w := newPDFWriter("1.5")
		w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
		w.obj(2, "<< /Type /Pages /Kids [] /Count 0 >>")
		w.obj(3, encryptDict)
		w.stream(4, " /Type /XRef /Size 5 /W [ 1 2 1 ] /Root 1 0 R /Encrypt 3 0 R /Filter /FlateDecode", deflate(make([]byte, 20)))
		w.b.WriteString("startxref\n0\n%%EOF\n")
		return w.bytes()
	}
	scripts := testLimits()
	scripts.AllowPDFScripts = true
	for name, c := range map[string]struct {
		pdf   []byte
		rules Limits
		want  Kind
	}{
		"trailer":                       {classic(" /Encrypt 3 0 R"), testLimits(), Encrypted},
		"trailer, scripts allowed":      {classic(" /Encrypt 3 0 R"), scripts, Encrypted},
		"trailer, escaped name":         {classic(" /Encr#79pt 3 0 R"), testLimits(), Encrypted},
		"trailer, direct dictionary":    {classic(" /Encrypt " + encryptDict), testLimits(), Encrypted},
		"xref stream":                   {xrefStream(), testLimits(), Encrypted},
		"xref stream, scripts allowed":  {xrefStream(), scripts, Encrypted},
		"with object streams":           {append(objStmPDF(""), "trailer\n<< /Encrypt 9 0 R >>\n%%EOF\n"...), testLimits(), Encrypted},
		"no trailer names it":           {classic(""), testLimits(), accepted},
		"the name in stream data":       {pdfWithStream("", []byte("BT (/Encrypt) Tj ET /Encrypt")), testLimits(), accepted},
		"EncryptMetadata is not it":     {classic(" /EncryptMetadata false"), testLimits(), accepted},
		"scripts allowed, no /Encrypt":  {classic(""), scripts, accepted},
		"the name in stream data again": {pdfWithStream("", []byte("/Encrypt")), scripts, accepted},
	} {
		t.Run(name, func(t *testing.T) {
			if got := fileKind(t, c.pdf, c.rules); got != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
}

// TestPDFEncryptedByQpdf: PDFs that qpdf encrypts from one the checks
// accept, with each algorithm it writes (RC4 40 and 128 bits, AES 128
// and 256), with a user password or with only an owner's, with and
// without object streams, are refused as Encrypted; qpdf --is-encrypted
// (the oracle) agrees that each is encrypted, and the file before it
// passes.
func TestPDFEncryptedByQpdf(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("qpdf"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and qpdf is missing: %v", err)
		}
		t.Skipf("qpdf: %v (.ci/run installs it)", err)
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.pdf")
	if err := os.WriteFile(plain, onePagePDF(""), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := fileKind(t, onePagePDF(""), testLimits()); got != accepted {
		t.Fatalf("the plain PDF: %s", got)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"rc4-40 user password", []string{"--encrypt", "secreto", "dueno", "40", "--"}},
		{"rc4-128 user password", []string{"--allow-weak-crypto", "--encrypt", "secreto", "dueno", "128", "--use-aes=n", "--"}},
		{"aes-128 user password", []string{"--encrypt", "secreto", "dueno", "128", "--use-aes=y", "--"}},
		{"aes-256 user password", []string{"--encrypt", "secreto", "dueno", "256", "--"}},
		{"aes-256 owner password only", []string{"--encrypt", "", "dueno", "256", "--print=none", "--"}},
		{"aes-256 object streams", []string{"--object-streams=generate", "--encrypt", "secreto", "dueno", "256", "--"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name+".pdf")
			args := append([]string{"--allow-weak-crypto"}, c.args...)
			if msg, err := exec.Command("qpdf", append(args, plain, out)...).CombinedOutput(); err != nil {
				t.Fatalf("qpdf %v: %v: %s", args, err, msg)
			}
			if err := exec.Command("qpdf", "--is-encrypted", out).Run(); err != nil {
				t.Fatalf("qpdf --is-encrypted: %v; the oracle says it is not encrypted", err)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if got := fileKind(t, data, testLimits()); got != Encrypted {
				t.Fatalf("got %s, want %s (%d bytes, /Encrypt at %d)", got, Encrypted, len(data), bytes.Index(data, []byte("/Encrypt")))
			}
		})
	}
}
