package pdforacle

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// The readers people open PDFs with, as oracles beside pdfcpu: pdf.js
// (Firefox's viewer; pdfjs-dist from npm, pinned in pdfjs/package.json,
// on the Node.js of test/node), MuPDF (SumatraPDF, zathura, mutool;
// Debian's mupdf-tools) and qpdf (Debian's qpdf). Each lists the
// actions, scripts and attachments it reads from a file; a file any of
// them reads one from must be refused by the check. pdf.js and MuPDF
// run as long-lived processes that read file after file, so that
// fuzzing is not spent starting them; qpdf, which has no such mode, is
// started once per file. .ci/run installs all three.

// Reader is one independent PDF reader.
type Reader struct {
	Name string
	// find returns what the reader finds in pdf; err when it cannot read
	// the file, ErrDied when it crashed or hung on it.
	find    func(pdf []byte) ([]string, error)
	missing func() error
}

// ErrDied is a file the reader crashed or hung on: it costs that file
// only, the next one is read by a fresh process.
var ErrDied = errors.New("the reader crashed or hung")

// Find returns the actions, scripts and attachments the reader finds in
// pdf (names as they appear, or a few words), or why it cannot read it.
func (r *Reader) Find(pdf []byte) ([]string, error) { return r.find(pdf) }

// Missing says why the reader cannot run here (not installed), or nil;
// it is found out once.
func (r *Reader) Missing() error { return r.missing() }

// here is this package's directory, where the readers' scripts are.
var here = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}()

// Readers returns pdf.js, MuPDF and qpdf, in that order. They are
// shared by the whole test binary; each serves one file at a time.
func Readers() []*Reader { return readers() }

var readers = sync.OnceValue(func() []*Reader {
	pdfjs := &lineProcess{name: "pdf.js", args: []string{"node", filepath.Join(here, "pdfjs", "readers.mjs")}}
	// mutool prints through C's stdio, which a pipe makes fully
	// buffered: stdbuf -oL hands each reply over as its line ends.
	mupdf := &lineProcess{name: "MuPDF", args: []string{"stdbuf", "-oL", "mutool", "run", filepath.Join(here, "mupdf.js")}}
	return []*Reader{
		{Name: "pdf.js", find: pdfjs.framed, missing: sync.OnceValue(pdfjsMissing)},
		{Name: "MuPDF", find: mupdf.byPath, missing: sync.OnceValue(func() error { return lookPath("mutool", "mupdf-tools") })},
		{Name: "qpdf", find: qpdfFind, missing: sync.OnceValue(func() error { return lookPath("qpdf", "qpdf") })},
	}
})

func lookPath(tool, pkg string) error {
	if _, err := exec.LookPath(tool); err != nil {
		return fmt.Errorf("%s is not installed (Debian: apt-get install %s; .ci/run installs it)", tool, pkg)
	}
	return nil
}

// pdfjsMissing: pdfjs-dist 6 needs Node.js 22.13 or later (test/node.sh
// puts the pinned one first on PATH) and its package installed.
func pdfjsMissing() error {
	if _, err := os.Stat(filepath.Join(here, "pdfjs", "node_modules", "pdfjs-dist", "package.json")); err != nil {
		return errors.New("pdfjs-dist is not installed (cd test/pdforacle/pdfjs && npm ci --omit=optional; .ci/run does)")
	}
	out, err := exec.Command("node", "-e", `const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 13) ? 0 : 1)`).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pdf.js needs Node.js >= 22.13 on PATH (source test/node.sh; use_node): %v %s", err, out)
	}
	return nil
}

// reply is what the pdf.js and MuPDF scripts answer for one file.
type reply struct {
	Found []string `json:"found"`
	Err   string   `json:"err"`
}

// lineProcess is a reader that answers each request with a line; it is
// started when first needed and again after it dies.
type lineProcess struct {
	name    string
	args    []string
	mu      sync.Mutex
	cmd     *exec.Cmd
	in      io.WriteCloser
	replies *bufio.Reader
	dir     string // for byPath: where the files are written
}

// framed sends pdf as an 8-byte big-endian length and the bytes.
func (p *lineProcess) framed(pdf []byte) ([]string, error) {
	return p.ask(func(w io.Writer) error {
		if err := binary.Write(w, binary.BigEndian, uint64(len(pdf))); err != nil {
			return err
		}
		_, err := w.Write(pdf)
		return err
	})
}

// byPath writes pdf to a file and sends its path as a line.
func (p *lineProcess) byPath(pdf []byte) ([]string, error) {
	p.mu.Lock()
	if p.dir == "" {
		dir, err := os.MkdirTemp("", "pdforacle-")
		if err != nil {
			p.mu.Unlock()
			return nil, err
		}
		p.dir = dir
	}
	path := filepath.Join(p.dir, "in.pdf")
	p.mu.Unlock()
	return p.ask(func(w io.Writer) error {
		if err := os.WriteFile(path, pdf, 0o600); err != nil {
			return err
		}
		_, err := io.WriteString(w, path+"\n")
		return err
	})
}

func (p *lineProcess) ask(send func(io.Writer) error) ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		if err := p.start(); err != nil {
			return nil, err
		}
	}
	got := make(chan string, 1)
	go func() {
		line, err := p.replies.ReadString('\n')
		if err != nil {
			line = ""
		}
		got <- line
	}()
	if err := send(p.in); err != nil {
		p.stop()
		<-got
		return nil, ErrDied
	}
	select {
	case line := <-got:
		var r reply
		if line == "" || json.Unmarshal([]byte(line), &r) != nil {
			p.stop()
			return nil, ErrDied
		}
		if r.Err != "" {
			return nil, errors.New(r.Err)
		}
		return r.Found, nil
	case <-time.After(30 * time.Second):
		p.stop()
		<-got
		return nil, ErrDied
	}
}

func (p *lineProcess) start() error {
	cmd := exec.Command(p.args[0], p.args[1:]...)
	cmd.Dir = here
	cmd.Stderr = io.Discard // warnings about the files read
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	p.cmd, p.in, p.replies = cmd, in, bufio.NewReader(out)
	return nil
}

// stop ends the process: closing its input ends a live one, Kill a hung one.
func (p *lineProcess) stop() {
	p.in.Close()
	p.cmd.Process.Kill()
	p.cmd.Wait()
	p.cmd = nil
}

// qpdfFind runs qpdf on pdf: the attachments it lists, and the active
// names and script URIs in every object of its JSON.
func qpdfFind(pdf []byte) ([]string, error) {
	f, err := os.CreateTemp("", "pdforacle-*.pdf")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(pdf); err != nil {
		f.Close()
		return nil, err
	}
	f.Close()
	cmd := exec.Command("qpdf", "--json=2", "--json-key=qpdf", "--json-key=attachments", f.Name())
	done := make(chan struct{})
	timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill(); close(done) })
	out, err := cmd.Output()
	if !timer.Stop() {
		<-done
		return nil, ErrDied
	}
	var exit *exec.ExitError
	// Exit 3: qpdf read the file with warnings (it repaired it).
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 3) {
		if errors.As(err, &exit) && exit.ExitCode() == 2 {
			return nil, fmt.Errorf("qpdf: %s", firstLine(exit.Stderr))
		}
		return nil, ErrDied
	}
	var doc struct {
		QPDF        []json.RawMessage          `json:"qpdf"`
		Attachments map[string]json.RawMessage `json:"attachments"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || len(doc.QPDF) < 2 {
		return nil, fmt.Errorf("qpdf: unexpected JSON: %v", err)
	}
	var objects map[string]any
	if err := json.Unmarshal(doc.QPDF[1], &objects); err != nil {
		return nil, fmt.Errorf("qpdf: unexpected JSON: %v", err)
	}
	var found []string
	for name := range doc.Attachments { // what qpdf --list-attachments lists
		found = append(found, "attachment "+name)
	}
	for _, o := range objects {
		found = qpdfWalk(o, "", found, 0)
	}
	return found, nil
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}
