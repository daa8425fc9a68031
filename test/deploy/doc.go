// Package deploy holds the tests of the packaged routes (Kubernetes,
// Compose, the container image, systemd): they build, load and start
// each route as its documents say. It is its own module, so that
// kustomize, the Kubernetes API types and the Compose loader stay out of
// the service's go.mod; test/run runs it with go -C test/deploy test.
package deploy
