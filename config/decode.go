package config

import (
	"fmt"
	"math"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/lender/disbursementd/domain"
)

// ByteSize is a number of bytes, written in the file and the environment as
// a whole number of bytes or with a KiB, MiB or GiB suffix ("32MiB").
type ByteSize int64

// String writes the size the way the file takes it: 32MiB, 1500.
func (b ByteSize) String() string {
	for _, u := range byteUnits {
		if b != 0 && b%ByteSize(u.mult) == 0 {
			return strconv.FormatInt(int64(b)/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(b), 10)
}

var byteUnits = []struct {
	suffix string
	mult   int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

// badValue is a value that its setting's type does not accept. Its text
// completes "config: <key> (<ENV>): ".
type badValue struct{ msg string }

func (e *badValue) Error() string { return e.msg }

func bad(format string, a ...any) error { return &badValue{fmt.Sprintf(format, a...)} }

// parsers turn a raw value (a string from the environment or a default; a
// string, number, bool or list from YAML) into a setting's type. They are
// the decode hooks of UnmarshalExact, so no other conversion (mapstructure's
// weak typing) ever applies to a setting.
var parsers = map[reflect.Type]func(raw any) (any, error){
	reflect.TypeFor[string]():               func(raw any) (any, error) { return scalar(raw) },
	reflect.TypeFor[int]():                  parseCount,
	reflect.TypeFor[bool]():                 parseBool,
	reflect.TypeFor[time.Duration]():        parseDuration,
	reflect.TypeFor[ByteSize]():             parseSize,
	reflect.TypeFor[[]string]():             func(raw any) (any, error) { return list(raw) },
	reflect.TypeFor[[]netip.Prefix]():       parsePrefixes,
	reflect.TypeFor[domain.RetrySchedule](): parseSchedule,
}

// decodeHook is the mapstructure DecodeHookFuncType for viper.
func decodeHook(_, to reflect.Type, data any) (any, error) {
	if p, ok := parsers[to]; ok {
		return p(data)
	}
	return data, nil // a section: mapstructure walks into it
}

// scalar is the text of a single value, trimmed.
func scalar(raw any) (string, error) {
	switch x := raw.(type) {
	case nil:
		return "", nil
	case string:
		return strings.TrimSpace(x), nil
	case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return fmt.Sprint(x), nil
	}
	switch reflect.ValueOf(raw).Kind() {
	case reflect.Slice, reflect.Array:
		return "", bad("a list is not a single value")
	case reflect.Map, reflect.Struct:
		return "", bad("a mapping is not a single value")
	}
	return "", bad("a %T is not a single value", raw)
}

func parseCount(raw any) (any, error) {
	s, err := scalar(raw)
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return nil, bad("%q is not a whole number ≥ 0", s)
	}
	return n, nil
}

func parseBool(raw any) (any, error) {
	s, err := scalar(raw)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(s) {
	case "true", "1", "yes":
		return true, nil
	case "false", "0", "no":
		return false, nil
	}
	return nil, bad("%q is not true or false", s)
}

func parseDuration(raw any) (any, error) {
	if d, ok := raw.(time.Duration); ok {
		return d, nil // an item of a retry schedule, parsed already
	}
	s, err := scalar(raw)
	if err != nil {
		return nil, err
	}
	d, err := ParseDuration(s)
	if err != nil {
		return nil, bad("%s", err)
	}
	return d, nil
}

// ParseDuration reads a duration as the configuration writes one: Go's
// form (30s, 5m, 720h) or a whole number of days (30d, 1825d); never
// negative. Command flags that take a period use it too.
func ParseDuration(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok && days != "" && strings.Trim(days, "0123456789") == "" {
		n, err := strconv.ParseInt(days, 10, 64)
		if err == nil && n <= int64(math.MaxInt64/(24*time.Hour)) {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration like 30s, 5m, 720h or 30d", s)
	}
	return d, nil
}

func parseSize(raw any) (any, error) {
	s, err := scalar(raw)
	if err != nil {
		return nil, err
	}
	num, mult := s, int64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return nil, bad("%q is not a size in bytes (or KiB, MiB, GiB)", s)
	}
	return ByteSize(n * mult), nil
}

// list reads a YAML list or a comma-separated string; items are trimmed
// and empty ones dropped.
func list(raw any) ([]string, error) {
	var items []string
	switch x := raw.(type) {
	case []any:
		for _, i := range x {
			s, err := scalar(i)
			if err != nil {
				return nil, bad("a list item must be a single value")
			}
			items = append(items, s)
		}
	case []string:
		items = x
	default:
		s, err := scalar(raw)
		if err != nil {
			return nil, err
		}
		items = strings.Split(s, ",")
	}
	var out []string
	for _, i := range items {
		if i = strings.TrimSpace(i); i != "" {
			out = append(out, i)
		}
	}
	return out, nil
}

// parsePrefixes reads a list of CIDRs or single addresses.
func parsePrefixes(raw any) (any, error) {
	items, err := list(raw)
	if err != nil {
		return nil, err
	}
	var out []netip.Prefix
	for _, item := range items {
		p, err := netip.ParsePrefix(item)
		if err != nil {
			a, aerr := netip.ParseAddr(item)
			if aerr != nil {
				return nil, bad("%q is not an address or CIDR", item)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
