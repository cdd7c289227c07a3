# chaincode/chaincode.mk — the ballot chaincode's make targets.
# Included by the top-level Makefile (ROOT, BIN, GO come from there).
#
#   make ballot-cc          build bin/ballot-cc (the chaincode service)
#   make chaincode-fuzz     the protocol/chaincode fuzz targets for FUZZTIME each
#   make chaincode-bench    cast-path benchmarks (proof verification direct vs batched)
#
# Unit tests (and -race) run in test-go: go test ./election/... ./chaincode/...

FUZZTIME ?= 30s
# Minimising each new interesting input may otherwise take up to 60 s, longer
# than the whole budget (under -fuzz, math/big and crypto are instrumented too).
FUZZMINIMIZE ?= 200x
# package:target pairs; each runs on its own for FUZZTIME with the committed seed corpus.
CHAINCODE_FUZZ_TARGETS := \
	./election:FuzzParseBallot \
	./election:FuzzParseManifest \
	./election:FuzzParseResult \
	./chaincode/ballot:FuzzCastBallot

.PHONY: ballot-cc chaincode-fuzz chaincode-bench

ballot-cc:
	$(GO) build -o $(BIN)/ballot-cc ./chaincode/ballot/cmd/ballot-cc

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
