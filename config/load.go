package config

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/lender/disbursementd/domain"
	"github.com/spf13/viper"
)

// Load reads the file at path ("" means $DISB_CONFIG, else
// disbursementd.yaml in the working directory if it exists), then the
// environment, which wins (env.go: the variables it reads and refuses).
// Every error is one line naming the key it is about and its variable.
func Load(path string) (*Config, error) {
	if err := checkEnv(os.Environ()); err != nil {
		return nil, err
	}
	v := newViper()
	for _, s := range Settings() {
		// Binding each key makes env overrides reach keys the file lacks.
		_ = v.BindEnv(s.Key, s.Env)
	}
	if _, path = FilePath(path); path != "" {
		v.SetConfigFile(path)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return nil, fmt.Errorf("config: file %s: %s", path, oneLine(err.Error()))
		}
		if err := unknownKeys(v); err != nil {
			return nil, fmt.Errorf("config: file %s: %w", path, err)
		}
	}
	if err := applySecretFiles(v); err != nil {
		return nil, err
	}
	return read(v)
}

// FilePath is the configuration file Load reads for the --config value
// flag: flag itself, else $DISB_CONFIG (both explicit: a missing file is
// an error), else disbursementd.yaml when the working directory has one;
// "" when there is none.
func FilePath(flag string) (explicit bool, path string) {
	switch {
	case flag != "":
		return true, flag
	case os.Getenv(EnvConfigFile) != "":
		return true, os.Getenv(EnvConfigFile)
	}
	if _, err := os.Stat(DefaultConfigFile); err == nil {
		return false, DefaultConfigFile
	}
	return false, ""
}

// Defaults returns the configuration with every key at its default, as if
// no file and no environment variable were set (for tests and tools).
func Defaults() *Config {
	c, err := read(newViper())
	if err != nil {
		panic("config: the defaults do not validate: " + err.Error())
	}
	return c
}

// newViper is a viper holding every key's default from its tag.
func newViper() *viper.Viper {
	v := viper.New()
	for _, s := range Settings() {
		v.SetDefault(s.Key, s.Default)
	}
	return v
}

func read(v *viper.Viper) (*Config, error) {
	c := &Config{}
	if err := v.UnmarshalExact(c, viper.DecodeHook(decodeHook)); err != nil {
		return nil, translate(err)
	}
	if err := c.finish(); err != nil {
		return nil, err
	}
	return c, nil
}

// translate turns mapstructure's error, which may hold several lines, into
// one line about the first key that failed (mapstructure joins the errors
// in the order of the struct's fields).
func translate(err error) error {
	// mapstructure.DecodeError; matched by its method so that this package
	// needs only viper.
	var named interface {
		error
		Name() string
	}
	if !errors.As(err, &named) {
		return fmt.Errorf("config: %s", oneLine(err.Error()))
	}
	key := named.Name()
	var bv *badValue
	msg := "not a valid value"
	if errors.As(named, &bv) {
		msg = bv.msg
	}
	if _, ok := lookup(key); !ok {
		return fmt.Errorf("config: %s: %s", key, msg)
	}
	return keyError(key, "%s", msg)
}

// KeyError is the configuration's one line naming key, its variable and
// why its value is refused, for a refusal an adapter makes (cmd asks the
// adapters whether they can use the configuration).
func KeyError(key, reason string) error { return keyError(key, "%s", reason) }

// keyError is the one shape of a configuration error.
// Whatever a message quotes, a user:password@ in it is masked.
func keyError(key, format string, a ...any) error {
	return fmt.Errorf("config: %s (%s): %s", key, EnvName(key), domain.MaskCredentials(fmt.Sprintf(format, a...)))
}

// oneLine keeps the first line of a message from a library.
func oneLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return first
}

func unknownKeys(v *viper.Viper) error {
	var bad, sections []string
	for _, k := range v.AllKeys() {
		if _, ok := lookup(k); ok {
			continue
		}
		if isSection(k) {
			sections = append(sections, k)
		} else {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		hints := make([]string, len(bad))
		for i, k := range bad {
			hints[i] = fmt.Sprintf("%s (did you mean %s?)", k, closest(k, Keys()))
		}
		return fmt.Errorf("unknown key %s (known keys: see disbursementd.example.yaml)", strings.Join(hints, ", "))
	}
	if len(sections) > 0 {
		sort.Strings(sections)
		return fmt.Errorf("%s is a section of keys, not a value (see disbursementd.example.yaml)", strings.Join(sections, ", "))
	}
	return nil
}
