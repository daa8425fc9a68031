package app

import (
	_ "embed"
	"runtime/debug"
)

// version and revision are set at build time with -ldflags
// "-X .../app.version=1.2.3 -X .../app.revision=<commit>". revision is for
// builds without .git (the Docker build context leaves it out, so Go
// records no vcs.revision); when empty, the revision Go recorded is used.
var (
	version  = "dev"
	revision = ""
)

// Version returns the build's version and VCS revision when known.
func Version() string {
	if c := commit(); c != "unknown" {
		return version + " (" + c[:min(12, len(c))] + ")"
	}
	return version
}

// commit is the VCS revision the binary was built from: the one stamped
// with -ldflags, else the one Go recorded, else "unknown" (go build
// -buildvcs=false, go run, a Docker build without the COMMIT argument).
func commit() string {
	if revision != "" {
		return revision
	}
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
