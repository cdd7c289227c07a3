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
package e2e
