# chaincode/chaincode.mk — the ballot chaincode's make targets.
# Included by the top-level Makefile (ROOT, BIN, GO come from there).
#
#   make ballot-cc          build bin/ballot-cc (the chaincode service), on GMP when available
#   make chaincode-test-gmp the crypto and chaincode tests on the GMP backend (part of make test)
#   make chaincode-fuzz     the protocol/chaincode fuzz targets for FUZZTIME each
#   make chaincode-bench    cast-path benchmarks (proof verification direct vs batched)
#
# Unit tests (and -race) run in test-go: go test ./election/... ./chaincode/...
#
# Arithmetic backend. Proof verification touches only public values, so it may
# use GMP (crypto/paillier/arith, build tag "gmp"; about 1.5x faster per
# ballot). CHAINCODE_GMP is "yes" when cgo is on and a C program including
# gmp.h links with -lgmp (Debian: libgmp-dev), else empty; set CHAINCODE_GMP=
# to force math/big. CHAINCODE_GO_TAGS is what to pass to go build -tags for
# the chaincode (exported, so scripts building it can use it: empty means
# math/big). Computations on secrets (encryption nonces, proof randomness,
# key material) stay on math/big in every build (arith.ExpSecret), because
# GMP's arithmetic is not constant-time.

# FUZZTIME and FUZZMINIMIZE (minimising a new interesting input may otherwise
# take up to 60 s, longer than the whole budget) have their defaults in
# reliability/reliability.mk, shared with fuzz-smoke.
# package:target pairs; each runs on its own for FUZZTIME with the committed seed corpus.
CHAINCODE_FUZZ_TARGETS := \
	./election:FuzzParseBallot \
	./election:FuzzParseManifest \
	./election:FuzzParseResult \
	./chaincode/ballot:FuzzCastBallot

# Probed at most once per make run, on first use (chaincode/gotags.sh; the
# export below makes that the first recipe run; reading the makefiles alone
# does not probe).
CHAINCODE_GMP ?= $(eval CHAINCODE_GMP := $$(if $$(shell $(ROOT)/chaincode/gotags.sh $(GO)),yes))$(CHAINCODE_GMP)
CHAINCODE_GO_TAGS = $(if $(filter yes,$(CHAINCODE_GMP)),gmp)
export CHAINCODE_GO_TAGS

.PHONY: ballot-cc chaincode-test-gmp chaincode-fuzz chaincode-bench

ballot-cc:
	@echo "ballot-cc: arithmetic backend $(if $(CHAINCODE_GO_TAGS),gmp (libgmp found),math/big (no libgmp-dev or cgo off))"
	$(GO) build $(if $(CHAINCODE_GO_TAGS),-tags $(CHAINCODE_GO_TAGS)) -o $(BIN)/ballot-cc ./chaincode/ballot/cmd/ballot-cc

# The default build's tests (test-go) cover math/big; this runs the same
# packages on the GMP backend, whose C code is otherwise never executed.
chaincode-test-gmp:
	@if [ "$(CHAINCODE_GMP)" = yes ]; then \
	  echo "$(GO) test -count=1 -tags gmp ./crypto/... ./chaincode/..."; \
	  $(GO) test -count=1 -tags gmp ./crypto/... ./chaincode/...; \
	else \
	  echo "chaincode-test-gmp: SKIPPED - libgmp not found by the C compiler (or CGO_ENABLED=0); install libgmp-dev to test the GMP backend"; \
	fi

TEST_TARGETS += chaincode-test-gmp

chaincode-fuzz:
	@for t in $(CHAINCODE_FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; fn=$${t##*:}; \
	  echo "fuzz $$pkg $$fn for $(FUZZTIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg || exit 1; \
	done

chaincode-bench:
	$(GO) test -run '^$$' -bench . -benchtime 20x ./chaincode/ballot

# make test runs every fuzz target of the module through fuzz-smoke (reliability/reliability.mk),
# these included; chaincode-fuzz stays for running just these.
