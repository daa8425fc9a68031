//go:build !race

package httpapi

// raceDetector: under the race detector a sync.Pool drops a quarter of
// what it is given, so allocations taken under it are not the service's.
const raceDetector = false
