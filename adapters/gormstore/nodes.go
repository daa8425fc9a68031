package gormstore

import (
	"fmt"
	"strings"
)

// A MySQL store.dsn may name several Galera nodes of one cluster in its
// address, in the order the replica prefers them:
//
//	user:password@tcp(db1:3306,db2:3306,db3:3306)/disb?...
//
// The credentials, the database and the parameters are written once and
// hold for every node; the store writes to one node at a time and moves
// to the next that serves when its node stops serving (failover.go).

// maxNodes bounds the list: a cluster of more nodes is served better by
// a proxy than by each replica probing every node.
const maxNodes = 9

// splitNodes returns one DSN per node of dsn's address list, in the
// list's order: dsn itself when it names one address (or is no DSN the
// driver reads, which the driver then refuses). The DSN is cut as the
// driver cuts it: the address is between the last "@" before the last
// "/" and that "/". An empty entry, a node named twice, more than
// maxNodes, or a list over another network than tcp is refused, naming
// store.dsn and never the password; so is an entry with credentials of
// its own (one DSN holds one set).
func splitNodes(dsn string) ([]string, error) {
	slash := strings.LastIndexByte(dsn, '/')
	if slash < 0 {
		return []string{dsn}, nil
	}
	at := strings.LastIndexByte(dsn[:slash], '@')
	addr := dsn[at+1 : slash]
	open := strings.IndexByte(addr, '(')
	if open < 0 && strings.HasSuffix(addr, ")") {
		// An "@" inside tcp(...) cut it: an entry with credentials.
		return nil, &SettingError{"store.dsn", "an entry of tcp(...) carries credentials (an \"@\"); they are written once, before tcp(...), and hold for every node"}
	}
	if open < 0 || !strings.HasSuffix(addr, ")") || !strings.Contains(addr, ",") {
		return []string{dsn}, nil
	}
	network, list := addr[:open], addr[open+1:len(addr)-1]
	if network != "tcp" {
		return nil, &SettingError{"store.dsn", fmt.Sprintf("a list of nodes is for tcp(host:port,host:port), not %s(...)", network)}
	}
	hosts := strings.Split(list, ",")
	if len(hosts) > maxNodes {
		return nil, &SettingError{"store.dsn", fmt.Sprintf("%d nodes in tcp(...), at most %d: put a proxy in front of a larger cluster", len(hosts), maxNodes)}
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(hosts))
	for i, h := range hosts {
		h = strings.TrimSpace(h)
		switch {
		case h == "":
			return nil, &SettingError{"store.dsn", fmt.Sprintf("node %d of the list tcp(%s) is empty; the form is tcp(host1:3306,host2:3306)", i+1, list)}
		case strings.ContainsAny(h, "@/()"):
			return nil, &SettingError{"store.dsn", fmt.Sprintf("node %d of the list tcp(...) is not host:port; the credentials and the database are written once, outside tcp(...)", i+1)}
		case seen[h]:
			return nil, &SettingError{"store.dsn", fmt.Sprintf("node %s is listed twice in tcp(%s)", h, list)}
		}
		seen[h] = true
		out = append(out, dsn[:at+1]+network+"("+h+")"+dsn[slash:])
	}
	return out, nil
}

// checkNodes refuses a MySQL DSN whose list of nodes splitNodes refuses
// and returns the first node's DSN, on which the other checks run (every
// node's DSN differs only in its address).
func checkNodes(driver, dsn string) (string, error) {
	if driver != MySQL {
		return dsn, nil
	}
	nodes, err := splitNodes(dsn)
	if err != nil {
		return "", err
	}
	return nodes[0], nil
}
