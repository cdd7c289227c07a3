// Package reliability holds fabvote's fault and hostile-input tests:
// isolation under the lockless commit gate, access control and secrets,
// crash and restart while ballots are cast, and resource limits, each on a
// real single-host network started with network/net.sh.
//
// They are end-to-end tests that start and kill processes, so they sit
// behind the build tag reliability and plain `go test ./...` compiles only
// this file. Run them with the make targets of reliability/reliability.mk
// (`make reliability`, `make reliability-crash`, …); `make fuzz-smoke` runs
// every fuzz target of the module for a fixed time. docs/RELIABILITY.md
// records what each test does and what it measured.
package reliability
