//go:build !race

package filecheck

// raceDetector: the race detector instruments allocations, so counts
// taken under it are not the service's.
const raceDetector = false
