# network/network.mk — the single-host Fabric network as native processes.
# Included by the top-level Makefile (ROOT, BIN, BUILD, RUN, GO come from there).
# network/README.md documents the profiles, ports and variables.

NET_SH          := $(ROOT)/network/net.sh
# The patched fork by default; FABRIC_BIN=$(BIN)/stock runs upstream Fabric.
FABRIC_BIN      ?= $(BIN)
FABRIC_CFG_SRC  ?= $(BUILD)/config
PROFILE         ?=
CHAINCODES      ?= ballot=./chaincode/ballot/cmd/ballot-cc
# What network-test needs built first; `make network-test NETWORK_TEST_DEPS=` skips it
# (e.g. with FABRIC_BIN pointing at binaries built elsewhere).
NETWORK_TEST_DEPS ?= fabric

export FABRIC_BIN FABRIC_CFG_SRC CHAINCODES GO RUN ROOT

.PHONY: network-up network-down network-status network-test network-unit

network-up:
	PROFILE=$(or $(PROFILE),solo-org) $(NET_SH) up

network-down:
	PROFILE=$(PROFILE) $(NET_SH) down

network-status:
	PROFILE=$(PROFILE) $(NET_SH) status

# Unit tests of the network tools and the kvtransfer chaincode (also part of test-go).
network-unit:
	$(GO) test -count=1 ./network/... ./chaincode/ccserver/... ./chaincode/kvtransfer/...

# End to end on real processes: solo-org and three-orgs, kills and restarts.
network-test: $(NETWORK_TEST_DEPS)
	$(ROOT)/network/test.sh

TEST_TARGETS += network-test
