package config

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/viper"
)

// reader reads typed values and keeps the first error, naming its key.
type reader struct {
	v   *viper.Viper
	err error
}

func (r *reader) fail(key, format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("config: %s (%s): %s", key, EnvName(key), fmt.Sprintf(format, a...))
	}
}

func (r *reader) str(key string) string { return strings.TrimSpace(r.v.GetString(key)) }

func (r *reader) dur(key string) time.Duration {
	s := r.str(key)
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		r.fail(key, "%q is not a duration like 30s or 5m", s)
	}
	return d
}

func (r *reader) count(key string) int {
	s := r.str(key)
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		r.fail(key, "%q is not a whole number ≥ 0", s)
	}
	return n
}

func (r *reader) size(key string) int64 {
	s := r.str(key)
	mult := int64(1)
	for suffix, m := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if strings.HasSuffix(s, suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, suffix)), m
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		r.fail(key, "%q is not a size in bytes (or KiB, MiB, GiB) above 0", r.str(key))
	}
	return n * mult
}

// prefixes reads a list of CIDRs or single addresses.
func (r *reader) prefixes(key string) []netip.Prefix {
	var out []netip.Prefix
	for _, item := range r.list(key) {
		p, err := netip.ParsePrefix(item)
		if err != nil {
			a, aerr := netip.ParseAddr(item)
			if aerr != nil {
				r.fail(key, "%q is not an address or CIDR", item)
				continue
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p.Masked())
	}
	return out
}

func (r *reader) boolean(key string) bool {
	s := strings.ToLower(r.str(key))
	switch s {
	case "true", "1", "yes":
		return true
	case "false", "0", "no":
		return false
	}
	r.fail(key, "%q is not true or false", s)
	return false
}

func (r *reader) list(key string) []string {
	var out []string
	raw := r.v.Get(key)
	var items []string
	switch x := raw.(type) {
	case []any:
		for _, i := range x {
			items = append(items, fmt.Sprint(i))
		}
	case []string:
		items = x
	default:
		items = strings.Split(r.str(key), ",")
	}
	for _, i := range items {
		if i = strings.ToLower(strings.TrimSpace(i)); i != "" {
			out = append(out, i)
		}
	}
	return out
}
