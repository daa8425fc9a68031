// Package fakes holds hand-written in-memory implementations of the
// core's ports, for the core's unit tests. The in-memory report store also
// runs through the shared store suite (test/storetest), so it is held to
// the same contract as the SQL stores.
package fakes
