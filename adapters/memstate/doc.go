// Package memstate keeps process-local state behind the core's ports: the
// login throttle and the verified-token and user-status caches, each a
// bounded LRU (hashicorp/golang-lru), so that no client can grow memory
// past its bound by cycling names, addresses or tokens. Each replica has
// its own; the login throttle has a shared, database-backed twin in
// gormstore for several replicas.
package memstate
