package app

import (
	_ "embed"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X .../app.version=v1.2.3".
var version = "dev"

// Version returns the build's version and VCS revision when known.
func Version() string {
	v := version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
	}
	return v
}

// commit is the VCS revision the binary was built from, "unknown" when
// the build did not record it (go build -buildvcs=false, go run).
func commit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				return s.Value
			}
		}
	}
	return "unknown"
}

//go:embed openapi.yaml
var openapi []byte

// OpenAPI returns the OpenAPI document served at /openapi.yaml.
func OpenAPI() []byte { return openapi }
