// Package ports is the inside edge of the hexagon. It holds:
//
//   - the port interfaces (interfaces.go): what the core needs from the
//     outside world — stores, the upload store, the credential exchange,
//     keys, password hashing, throttles, caches and the clock — each
//     implemented by an adapter;
//   - the use cases that implement the driving ports, one file each:
//     reports.go (a partner reports a disbursement), auth.go and
//     auth_throttle.go (tokens in and out, with login throttling),
//     login.go (the built-in login),
//     users.go (the users commands), sweep.go, sweep_files.go and
//     quarantine.go (the crash sweep and its quarantine), purge.go (the
//     retention purge), lookup.go, cursor.go and support.go (the
//     partners' and support's look-ups);
//   - compat100.go: the compatibility with release 1.0.0's idempotency
//     records, removed in 2.0.0.
//
// The driving adapters (HTTP, CLI) declare the small interfaces they call
// on their own side; the use cases here satisfy them. Like domain, ports
// imports the standard library only.
package ports
