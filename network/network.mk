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

network-up:
	PROFILE=$(or $(PROFILE),solo-org) $(NET_SH) up

network-down:
	PROFILE=$(PROFILE) $(NET_SH) down

network-status:
	PROFILE=$(PROFILE) $(NET_SH) status

# The Prometheus scrape configuration of the running network (PROFILE, or the
# last one started), written beside its network.json; REGISTRAR=HOST:PORT adds
# the operations endpoint of an `ea serve --ops-addr`. network/monitoring/README.md.
MON_RUN_DIR = $(if $(PROFILE),$(RUN)/$(PROFILE),$(RUN)/current)
monitoring-config:
	$(GO) run ./network/cmd/fabmon prometheus --network $(MON_RUN_DIR)/network.json \
		$(if $(REGISTRAR),--registrar $(REGISTRAR)) --out $(MON_RUN_DIR)/prometheus.yml
	@echo "prometheus --config.file=$(MON_RUN_DIR)/prometheus.yml"

# Regenerates the committed Grafana dashboard from network/monitoring/dashboard.go.
monitoring-dashboard:
	$(GO) run ./network/cmd/fabmon dashboard --out network/monitoring/grafana/fabvote.json

# Unit tests of the network tools and the kvtransfer chaincode (also part of test-go).
network-unit:
	FABVOTE_PROMTOOL_TEST=1 $(GO) test -count=1 ./network/... ./chaincode/ccserver/... ./chaincode/kvtransfer/...

# End to end on real processes: solo-org and three-orgs, kills and restarts.
network-test: $(NETWORK_TEST_DEPS)
	$(ROOT)/network/test.sh

TEST_TARGETS += network-test
