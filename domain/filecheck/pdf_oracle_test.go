package filecheck

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	pdfcpu "github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// The PDF check, differentially against an independent reader: pdfcpu
// reads the file as a viewer does (cross-reference table or stream,
// object streams decoded with their filters and predictors, references
// resolved, a broken file repaired) and lists the names of contract §7
// in every object it read. Whatever it finds, the check must refuse.
// pdfcpu is a test dependency only: no file of the service imports it.
//
// pdfcpu runs in a child process, this test binary started again with
// DISB_TEST_PDF_ORACLE=child: on some hostile inputs it recurses until
// its stack overflows (a stream whose /DecodeParms names itself), a fatal
// error that recover does not catch, and a crash or a hang of the oracle
// must cost one input, not the test run or the fuzzing.

// oracleActive are contract §7's names, spelled here again on purpose:
// the oracle shares no code with the check.
var oracleActive = []string{"JavaScript", "JS", "Launch", "EmbeddedFile", "RichMedia", "XFA"}

var pdfcpuConfig = sync.OnceValue(func() *model.Configuration {
	model.ConfigPath = "disable" // no configuration directory written or read
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	return conf
})

// oracleNames returns the active names pdfcpu finds in the objects it
// reads from pdf, as keys or values, #xx escapes decoded; err when it
// cannot read the file (or fails inside).
func oracleNames(pdf []byte) (found []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			found, err = nil, fmt.Errorf("pdfcpu panicked: %v", r)
		}
	}()
	c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conf := *pdfcpuConfig()
	ctx, err := pdfcpu.ReadWithContext(c, bytes.NewReader(pdf), &conf)
	if err != nil {
		return nil, err
	}
	note := func(name string) {
		if d, err := types.DecodeName(name); err == nil {
			name = d
		}
		if slices.Contains(oracleActive, name) && !slices.Contains(found, name) {
			found = append(found, name)
		}
	}
	var walk func(o types.Object, depth int)
	walk = func(o types.Object, depth int) {
		if depth > 100 {
			return
		}
		switch v := o.(type) {
		case types.Name:
			note(string(v))
		case types.Dict:
			for k, e := range v {
				note(k)
				walk(e, depth+1)
			}
		case types.Array:
			for _, e := range v {
				walk(e, depth+1)
			}
		case types.StreamDict:
			walk(v.Dict, depth+1)
		case types.ObjectStreamDict:
			walk(v.Dict, depth+1)
		case types.XRefStreamDict:
			walk(v.Dict, depth+1)
		}
	}
	for _, e := range ctx.XRefTable.Table {
		if e == nil || e.Object == nil {
			continue
		}
		o := e.Object
		if lazy, ok := o.(types.LazyObjectStreamObject); ok {
			// An object of an object stream, decoded when first used.
			if o, err = lazy.DecodedObject(c); err != nil {
				continue
			}
		}
		walk(o, 0)
	}
	return found, nil
}

// TestMain serves the oracle when this binary is its child process.
func TestMain(m *testing.M) {
	if os.Getenv("DISB_TEST_PDF_ORACLE") == "child" {
		debug.SetMaxStack(64 << 20) // a runaway recursion dies soon
		serveOracle(os.Stdin, os.NewFile(3, "replies"))
		return
	}
	os.Exit(m.Run())
}

// serveOracle answers requests (an 8-byte length, then the PDF) with a
// line: "ok" and the names found, or "err" and why pdfcpu could not
// read the file. It returns when in ends.
func serveOracle(in io.Reader, out io.Writer) {
	r := bufio.NewReader(in)
	for {
		var n uint64
		if binary.Read(r, binary.BigEndian, &n) != nil {
			return
		}
		pdf := make([]byte, n)
		if _, err := io.ReadFull(r, pdf); err != nil {
			return
		}
		line := "ok"
		found, err := oracleNames(pdf)
		if err != nil {
			line = "err " + strings.ReplaceAll(err.Error(), "\n", " ")
		}
		for _, name := range found {
			line += " " + name
		}
		fmt.Fprintln(out, line)
	}
}

// oracleChild is the child process that runs pdfcpu, started when first
// needed and again after it dies.
type oracleChild struct {
	mu      sync.Mutex
	cmd     *exec.Cmd
	in      io.WriteCloser
	replies *bufio.Reader
}

var theOracle oracleChild

// errOracleDied is an input the oracle crashed or hung on.
var errOracleDied = errors.New("pdfcpu crashed or hung")

// ask returns what the oracle finds in pdf.
func (o *oracleChild) ask(pdf []byte) ([]string, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cmd == nil {
		if err := o.start(); err != nil {
			return nil, err
		}
	}
	reply := make(chan string, 1)
	go func() {
		line, err := o.replies.ReadString('\n')
		if err != nil {
			line = ""
		}
		reply <- line
	}()
	if binary.Write(o.in, binary.BigEndian, uint64(len(pdf))) != nil || func() error { _, err := o.in.Write(pdf); return err }() != nil {
		o.stop()
		<-reply
		return nil, errOracleDied
	}
	select {
	case line := <-reply:
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
			o.stop()
			return nil, errOracleDied
		case fields[0] == "err":
			return nil, errors.New(strings.Join(fields[1:], " "))
		}
		return fields[1:], nil
	case <-time.After(30 * time.Second):
		o.stop()
		<-reply
		return nil, errOracleDied
	}
}

func (o *oracleChild) start() error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DISB_TEST_PDF_ORACLE=child")
	cmd.ExtraFiles = []*os.File{w} // the child's file 3
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	w.Close()
	o.cmd, o.in, o.replies = cmd, in, bufio.NewReader(r)
	return nil
}

// stop ends the child: closing its input ends a live one, Kill a hung one.
func (o *oracleChild) stop() {
	o.in.Close()
	o.cmd.Process.Kill()
	o.cmd.Wait()
	o.cmd = nil
}
