//go:build !race

package app_test

// raceDetector: the race detector instruments allocations, so counts
// taken under it are not the service's.
const raceDetector = false
