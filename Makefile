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

# Fragments append their test targets to TEST_TARGETS.
TEST_TARGETS :=

-include fabric/fabric.mk
-include network/network.mk
-include chaincode/chaincode.mk
-include cmd/fabvote/fabvote.mk
-include caliper-bench/caliper.mk
-include bench/bench.mk
-include reliability/reliability.mk
-include network/docker.mk
-include internal/bboard/bboard.mk
-include verifier-py/verifier.mk
-include deploy/helm/helm.mk

.DEFAULT_GOAL := help
.PHONY: help test test-go vet fmt-check

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

# Each part runs in turn and its time is printed at the end (also after a
# failure), with the share of the machine's CPU time it kept busy, so that a
# change sees what it costs and where cores idle.
test:
	@times=(); rc=0; \
	for t in test-go $(TEST_TARGETS); do \
		t0=$$(date +%s); c0=$$($(ROOT)/scripts/cpu-busy.sh); \
		$(MAKE) --no-print-directory $$t || { rc=$$?; times+=("$$(printf '%-24s FAILED after %d s' $$t $$(( $$(date +%s) - t0 )))"); break; }; \
		times+=("$$(printf '%-24s %6d s  CPU %s' $$t $$(( $$(date +%s) - t0 )) "$$($(ROOT)/scripts/cpu-busy.sh $$c0)")"); \
	done; \
	echo "make test: time of each part"; printf '  %s\n' "$${times[@]}"; \
	[ $$rc = 0 ] || exit $$rc
	@echo "make test: all passed"
