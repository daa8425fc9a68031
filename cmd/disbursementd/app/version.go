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

//go:embed openapi.yaml
var openapi []byte

// OpenAPI returns the OpenAPI document served at /openapi.yaml.
func OpenAPI() []byte { return openapi }
