# fabvote — top-level Makefile.
#
# Each area owns a make fragment (fabric/fabric.mk, network/network.mk, …) so the
# areas can evolve independently; this file only wires them together.
# `make demo` and `make test` are the two entry points README.md promises.

SHELL       := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
GO          ?= go
ROOT        := $(CURDIR)
BIN         := $(ROOT)/bin
BUILD       := $(ROOT)/build
RUN         := $(ROOT)/run
export GOFLAGS ?= -buildvcs=false
export CGO_ENABLED ?= 1

# Fragments append their test targets to TEST_TARGETS (unit, fuzz and
# upstream tests, which keep the cores busy) or TEST_NET_TARGETS (tests on
# real networks, which wait much of the time), and what those share to
# TEST_BUILD, built once before the two lists run side by side.
TEST_TARGETS :=
TEST_NET_TARGETS :=
TEST_BUILD := go-modules

-include fabric/fabric.mk
-include network/network.mk
-include chaincode/chaincode.mk
-include cmd/fabvote/fabvote.mk
-include caliper-bench/caliper.mk
-include bench/bench.mk
-include reliability/reliability.mk
-include network/docker.mk
-include internal/bboard/bboard.mk
-include booth/booth.mk
-include verifier-py/verifier.mk
-include deploy/helm/helm.mk

.DEFAULT_GOAL := help
.PHONY: help test test-go vet fmt-check go-modules

# The root module's modules, into the cache (before make test's lanes).
go-modules:
	$(GO) mod download

help:
	@echo "make demo   - build the fork, start a single-host network, run a full election"
	@echo "make test   - every test (unit, race, upstream Fabric packages, end to end)"
	@echo "see README.md for the rest"

# Packages with concurrency run again under the race detector.
RACE_PKGS ?= ./txmgr/... ./chaincode/... ./internal/registrar/... ./internal/opsserve/... ./fabric/ext/sigmemo ./fabric/ext/decodememo

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null; git ls-files --others --exclude-standard '*.go' 2>/dev/null)); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

test-go: fmt-check vet
	FABVOTE_PROMTOOL_TEST=1 $(GO) test -count=1 ./...
	$(GO) test -count=1 -race $(RACE_PKGS)

# The two lists run side by side, each part of a list after the one before
# (scripts/test-lanes.sh; TEST_LANES=1 runs them one after another). Each
# part's time is printed at the end, also after a failure, so that a change
# sees what it costs; the network parts' ports come from the port plan,
# whose test (TestPlanHasNoClash) covers every pair that runs side by side.
test:
	@$(MAKE) --no-print-directory $(TEST_BUILD)
	@MAKE="$(MAKE)" $(ROOT)/scripts/test-lanes.sh $(BUILD)/test-logs "test-go $(TEST_TARGETS)" "$(TEST_NET_TARGETS)"
