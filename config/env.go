package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/viper"
)

// The environment variables Load reads besides DISB_<SECTION>_<KEY>:
//
//   - DISB_CONFIG: the configuration file's path, when no --config is given.
//   - DISB_<SECTION>_<KEY>_FILE, for the secret settings only (those whose
//     value is hidden in logs: Setting.FileEnv is set): the setting's value
//     is the content of that file, as container platforms mount secrets.
//     Setting both the variable and its _FILE form is an error. A setting
//     whose own key ends in _file (auth.private_key_file) is a path, not a
//     secret: DISB_AUTH_PRIVATE_KEY_FILE is that key's own variable, and
//     no variable ends in _FILE_FILE.
//   - DISB_TEST_*: reserved for the test suite; never read, never refused.
//
// Any other DISB_* variable is refused, naming the closest known one.
const (
	EnvConfigFile = "DISB_CONFIG"
	envPrefix     = "DISB_"
	envTestPrefix = "DISB_TEST_"
	fileSuffix    = "_FILE"
	// maxSecretFile bounds what a _FILE variable may make Load read: a
	// secret is a line, not a file someone pointed at by mistake.
	maxSecretFile = 64 << 10
)

// knownEnv maps every variable Load reads to the key it sets ("" for
// DISB_CONFIG).
func knownEnv() map[string]string {
	known := map[string]string{EnvConfigFile: ""}
	for _, s := range Settings() {
		known[s.Env] = s.Key
		if s.FileEnv != "" {
			known[s.FileEnv] = s.Key
		}
	}
	return known
}

// checkEnv refuses every DISB_* variable of environ that names no key.
func checkEnv(environ []string) error {
	known := knownEnv()
	names := make([]string, 0, len(known))
	for n := range known {
		names = append(names, n)
	}
	sort.Strings(names)
	var bad []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix) || strings.HasPrefix(name, envTestPrefix) {
			continue
		}
		if _, ok := known[name]; ok {
			continue
		}
		bad = append(bad, fmt.Sprintf("%s (did you mean %s?)", name, closest(name, names)))
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	what := "variable"
	if len(bad) > 1 {
		what = "variables"
	}
	return fmt.Errorf("config: unknown environment %s %s; every variable is listed in disbursementd.example.yaml's keys (DISB_<SECTION>_<KEY>)",
		what, strings.Join(bad, ", "))
}

// applySecretFiles sets each secret setting whose _FILE variable is set
// from that file's content (one trailing line break dropped).
func applySecretFiles(v *viper.Viper) error {
	for _, s := range Settings() {
		if s.FileEnv == "" {
			continue
		}
		path := os.Getenv(s.FileEnv)
		if path == "" {
			continue
		}
		if os.Getenv(s.Env) != "" {
			return fmt.Errorf("config: %s (%s): both %s and %s are set; set one", s.Key, s.FileEnv, s.Env, s.FileEnv)
		}
		value, err := readSecretFile(path)
		if err != nil {
			return fmt.Errorf("config: %s (%s): %w", s.Key, s.FileEnv, err)
		}
		v.Set(s.Key, value)
	}
	return nil
}

// readSecretFile reads a secret; its errors never quote the content.
func readSecretFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("read %s: %w", path, err)
	case len(b) > maxSecretFile:
		return "", fmt.Errorf("%s is larger than %d bytes; a secret file holds one value", path, maxSecretFile)
	}
	value := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if value == "" {
		return "", errors.New(path + " is empty")
	}
	return value, nil
}
