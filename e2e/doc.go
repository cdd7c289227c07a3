// Package e2e is fabvote's end-to-end test: a whole election and every
// rejection case on a real network (peers, orderers, the ballot chaincode
// service, the Fabric gateway and the fabvote binary), with no mocks.
//
// The test is behind the build tag e2e and needs a running network, so plain
// `go test ./...` skips it; `make e2e-test` (scripts/e2e.sh) starts a
// three-orgs network, runs it with
//
//	FABVOTE_E2E_NETWORK=…/network.json FABVOTE_BIN=bin/fabvote FABVOTE_BOOTH_DIR=build/booth \
//		go test -tags e2e,browser ./e2e/
//
// and stops the network. The build tag browser adds TestBooth: the voter's
// booth (make booth) in headless Chromium (internal/boothtest), served by
// fabvote ea serve, casting through fabvote box serve.
//
// TestKeyCeremony runs the trustees' key ceremony (docs/OPERATORS.md
// section 10a) as it runs between machines: the relay and each of three
// trustees are processes of their own, each on a host of its own (a
// network namespace on a private switch, network/netns), and all three
// end with their own sealed shares and the same public result. An
// election under that key (keyOrigin distributed) is then cast, decrypted
// by two of the trustees' ceremony shares, published, and verified live
// and from its record by both verifiers, the key's origin (V33) included.
// The namespaces need root and iproute2, which `make e2e-test` has in CI;
// without them the test skips.
package e2e
