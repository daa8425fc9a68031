// Package process tests the real binary, built once per run
// (testkit.BinaryPath): crashes, graceful shutdown, the memory of a
// process under a cgroup's limit, fleets of replicas, and the command
// line as a deployment runs it.
//
// loadTests: the tests that load the machine and judge the service by what
// happens under that load (TestSIGKILLUnderLoad,
// TestFleetReplicaKilledMidLoad, TestGracefulShutdown,
// TestMemoryHoldsUnderLargeBodies) do not call t.Parallel: a neighbour's
// load in the same binary would change what they measure. Each waits for
// the load to be under way (reports acknowledged) before it strikes, so a
// slow machine delays them instead of failing them. The other tests own
// their directory, database and processes and run in parallel.
package process
