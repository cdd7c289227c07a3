// Package nettest runs fabvote against a live test network from Go tests:
// it runs the fabvote binary, creates an election and its ballots with it
// in the directory layout the CLI writes, reads back what the CLI writes
// (manifests, ballot streams, choice records) and checks the contract's
// rejections. The end-to-end suite (e2e/) and the reliability suite
// (reliability/) share it; starting and stopping the network stays with
// them, since each starts its own kind.
//
// It has no build tag: none of its helpers needs a network to compile, so
// `go vet ./...` checks it and its unit tests run with the plain `go test`.
package nettest
