// Package testkit is what the test packages under test/ share: a service
// started in-process on :0 (MustStart), the real binary built once and
// run as processes (BinaryPath, StartProcess, CLI), the partners they
// use, and the checks every started service gets when its test ends
// (watch): no secret in its log, and every answer through the recording
// http.DefaultClient as openapi.yaml describes it. It is imported by test
// code only.
package testkit
