package filecheck

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/pdforacle"
)

// The PDF check, differentially against an independent reader: pdfcpu
// reads the file as a viewer does and lists the names of contract §7 in
// every object it read (package test/pdforacle). Whatever it finds, the
// check must refuse. pdfcpu is a test dependency only: no file of the
// service imports it.
//
// pdfcpu runs in a child process, this test binary started again with
// DISB_TEST_PDF_ORACLE=child: on some hostile inputs it recurses until
// its stack overflows (a stream whose /DecodeParms names itself), a fatal
// error that recover does not catch, and a crash or a hang of the oracle
// must cost one input, not the test run or the fuzzing.

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
		found, err := pdforacle.Names(pdf)
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
