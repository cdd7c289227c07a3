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

.PHONY: network-up network-down network-status network-test network-unit monitoring-config monitoring-dashboard

network-up: fabric-ca
	PROFILE=$(or $(PROFILE),solo-org) $(NET_SH) up

network-down:
	PROFILE=$(PROFILE) $(NET_SH) down

network-status:
	PROFILE=$(PROFILE) $(NET_SH) status

# The Prometheus scrape configuration of the running network (NET_RUN_DIR,
# else PROFILE, else the last one started), written beside its network.json; REGISTRAR=HOST:PORT adds
# the operations endpoint of an `ea serve --ops-addr`. network/monitoring/README.md.
MON_RUN_DIR = $(or $(NET_RUN_DIR),$(if $(PROFILE),$(RUN)/$(PROFILE),$(RUN)/current))
monitoring-config:
	$(GO) run ./network/cmd/fabmon prometheus --network $(MON_RUN_DIR)/network.json \
		$(if $(REGISTRAR),--registrar $(REGISTRAR)) --out $(MON_RUN_DIR)/prometheus.yml
	@echo "prometheus --config.file=$(MON_RUN_DIR)/prometheus.yml --web.listen-address=$$($(GO) run ./network/cmd/fabnet ports env | sed -n 's/^PROMETHEUS_ADDR=//p')"

# Regenerates the committed Grafana dashboard from network/monitoring/dashboard.go.
monitoring-dashboard:
	$(GO) run ./network/cmd/fabmon dashboard --out network/monitoring/grafana/fabvote.json

# Fabric CA (server and client) from its Go module, into bin/. The module's
# zip carries no vendor/ tree, so the source is copied under build/ and built
# with the module proxy; nothing of it is committed.
FABRIC_CA_VERSION := v1.5.7
FABRIC_CA_SRC     := $(BUILD)/fabric-ca-$(FABRIC_CA_VERSION)
.PHONY: fabric-ca fabca-test
# The build is skipped when both binaries exist and were built from this version.
fabric-ca:
	@if [ -x $(BIN)/fabric-ca-server ] && [ -x $(BIN)/fabric-ca-client ] && \
		[ "$$(cat $(BIN)/.fabric-ca-version 2>/dev/null)" = $(FABRIC_CA_VERSION) ]; then \
		echo "fabric-ca $(FABRIC_CA_VERSION): bin/fabric-ca-server and bin/fabric-ca-client are built"; exit 0; fi; \
	set -e; \
	if [ ! -f $(FABRIC_CA_SRC)/go.mod ]; then \
		dir=$$(cd / && $(GO) mod download -json github.com/hyperledger/fabric-ca@$(FABRIC_CA_VERSION) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p'); \
		test -f "$$dir/go.mod"; rm -rf $(FABRIC_CA_SRC).tmp; cp -r "$$dir" $(FABRIC_CA_SRC).tmp; \
		chmod -R u+w $(FABRIC_CA_SRC).tmp; rm -rf $(FABRIC_CA_SRC).tmp/vendor; mv $(FABRIC_CA_SRC).tmp $(FABRIC_CA_SRC); fi; \
	mkdir -p $(BIN); \
	cd $(FABRIC_CA_SRC) && $(GO) build -mod=mod -trimpath -o $(BIN)/ ./cmd/fabric-ca-server ./cmd/fabric-ca-client; \
	echo $(FABRIC_CA_VERSION) > $(BIN)/.fabric-ca-version

# Enrollment from real Fabric CA servers into cryptogen's layout (network/fabca).
fabca-test: fabric-ca
	FABVOTE_FABRIC_CA_BIN=$(BIN) $(GO) test -count=1 -v -run . ./network/fabca/

TEST_NET_TARGETS += fabca-test
TEST_BUILD += fabric fabric-ca fabnet booth

# Unit tests of the network tools and the kvtransfer chaincode (also part of test-go).
network-unit:
	FABVOTE_PROMTOOL_TEST=1 $(GO) test -count=1 ./network/... ./chaincode/ccserver/... ./chaincode/kvtransfer/...

# End to end on real processes: solo-org and three-orgs, kills and restarts.
network-test: $(NETWORK_TEST_DEPS) fabric-ca
	$(ROOT)/network/test.sh

TEST_NET_TARGETS += network-test

# fabnet and the peers' external builder, into bin/ (docs/MULTIHOST.md).
.PHONY: fabnet
fabnet:
	$(GO) build -o $(BIN)/ ./network/cmd/fabnet ./network/cmd/ccaas-builder

# fabnet's pages of the CLI reference in docs/cli (make docs; internal/cli).
CLI_TOOLS += ./network/cmd/fabnet

# Each organisation on a host of its own: a network namespace with its own
# address, loopback and directory (network/netns), set up with network/fabnet
# by the procedure of docs/MULTIHOST.md, then a whole election. Needs root
# and iproute2.
MULTIHOST_ENV = FABVOTE_MULTIHOST_TEST=1 ROOT=$(ROOT) FABRIC_BIN=$(abspath $(FABRIC_BIN)) FABRIC_CA_BIN=$(BIN) \
	FABRIC_CFG_SRC=$(abspath $(FABRIC_CFG_SRC)) FABVOTE_BIN=$(BIN)/fabvote GO=$(GO)
MULTIHOST_GOTEST = $(GO) test -count=1 -v -timeout 30m ./network/multihost/
.PHONY: multihost-test multihost-partition
multihost-test: fabric fabric-ca fabvote
	$(MULTIHOST_ENV) $(MULTIHOST_GOTEST) -run '^TestElectionOnSeparateHosts$$'

TEST_NET_TARGETS += multihost-test

# One host cut off for PARTITION_CUT in the middle of a fixed-rate run of
# PARTITION_BALLOTS ballots (docs/RELIABILITY.md); PARTITION_HOST is a
# party's peer host (empty: TestPartition's default) or orderer;
# PARTITION_OUT=FILE keeps the figures as JSON.
PARTITION_BALLOTS ?= 500
PARTITION_CUT     ?= 30s
PARTITION_HOST    ?=
multihost-partition: fabric fabric-ca fabvote
	$(MULTIHOST_ENV) FABVOTE_PARTITION_TEST=1 FABVOTE_PARTITION_BALLOTS=$(PARTITION_BALLOTS) \
		FABVOTE_PARTITION_CUT=$(PARTITION_CUT) FABVOTE_PARTITION_HOST=$(PARTITION_HOST) \
		FABVOTE_PARTITION_OUT=$(PARTITION_OUT) $(MULTIHOST_GOTEST) -run '^TestPartition$$'
