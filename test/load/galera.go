package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/lender/disbursementd/test/soak"
)

// galeraSoak is -soak -galera's cluster: test/galera.sh's, named by
// DISB_TEST_GALERA_DSNS (one DSN per node, no database) and GALERA_DIR
// (where the script kills and restarts a node). It returns the soak's
// Galera (its DSNs still without the database: Galera.ForDatabase adds
// it) and the first node's DSN, on which the database is created.
func galeraSoak(o options) (*soak.Galera, string, error) {
	dsns, node, err := galeraCluster(o)
	if err != nil {
		return nil, "", err
	}
	return &soak.Galera{DSNs: dsns, Kill: node("kill"), Restart: node("restart"), Every: o.galeraEvery}, dsns[0], nil
}

// galeraCluster is test/galera.sh's cluster: one DSN per node (no
// database), and the script's verbs (kill, restart) on node n (0-based).
func galeraCluster(o options) ([]string, func(verb string) func(n int) error, error) {
	nodes, dir := os.Getenv("DISB_TEST_GALERA_DSNS"), os.Getenv("GALERA_DIR")
	if nodes == "" || dir == "" {
		return nil, nil, errors.New("-galera and -mode node-kill need test/galera.sh's cluster: source test/galera.sh && start_galera")
	}
	script := filepath.Join(o.root, "test", "galera.sh")
	node := func(verb string) func(int) error {
		return func(n int) error {
			cmd := exec.Command("bash", script, verb, fmt.Sprint(n+1))
			cmd.Env = append(os.Environ(), "GALERA_DIR="+dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("galera.sh %s %d: %v\n%s", verb, n+1, err, out)
			}
			return nil
		}
	}
	return strings.Split(nodes, ","), node, nil
}
