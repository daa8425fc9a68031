package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Oracle returns the Node.js that runs dir's verify.mjs (test/sworacle),
// found as name on PATH ("node" when empty), or an error saying what to
// install when it or the standardwebhooks package is missing.
func Oracle(dir, name string) (string, error) {
	if name == "" {
		name = "node"
	}
	node, err := exec.LookPath(name)
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "standardwebhooks", "package.json"))
	}
	if err != nil {
		return "", errors.New("the Standard Webhooks oracle is not installed (source test/node.sh && use_node && bash test/sworacle/install): " + err.Error())
	}
	return node, nil
}

// checkSignatures runs test/sworacle/verify.mjs --lines once over every
// POST the receiver got (the endpoint's secret first, then the file).
func (w *whSoak) checkSignatures(ctx context.Context) error {
	if err := w.rcv.flush(); err != nil {
		return fmt.Errorf("the receiver's file: %w", err)
	}
	f, err := os.Open(w.rcv.file.Name())
	if err != nil {
		return err
	}
	defer f.Close()
	head, _ := json.Marshal(map[string]string{"secret": w.whSecret})
	cmd := exec.CommandContext(ctx, w.wc.Node, "verify.mjs", "--lines")
	cmd.Dir, cmd.Stdin = w.wc.Oracle, io.MultiReader(bytes.NewReader(append(head, '\n')), f)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("node %s --lines: %v\n%s", filepath.Join(w.wc.Oracle, "verify.mjs"), err, stderr.String())
	}
	var res struct {
		Checked, Valid int
		Invalid        []struct {
			Line      int
			ID, Error string
		}
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return fmt.Errorf("verify.mjs said %.300s: %w", out, err)
	}
	w.res.SignaturesChecked, w.res.SignaturesValid = res.Checked, res.Valid
	if res.Checked != w.res.Posts {
		w.res.violation("the oracle checked %d POSTs, the receiver got %d", res.Checked, w.res.Posts)
	}
	for _, bad := range res.Invalid {
		w.res.violation("POST %d (%s): standardwebhooks refuses it: %s", bad.Line, bad.ID, bad.Error)
	}
	if n := res.Checked - res.Valid - len(res.Invalid); n > 0 {
		w.res.violation("and %d more POSTs refused by standardwebhooks", n)
	}
	return nil
}
