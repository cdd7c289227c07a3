# fabric/fabric.mk — the fork's make targets; the logic lives in fabric/build.sh.
#
#   make fabric                 pinned upstream + patches -> bin/peer, bin/orderer, ...
#   make fabric-stock           pinned upstream, unpatched -> bin/stock/...
#   make fabric-modules         every module the patched and stock trees build and
#                               test with, into the module cache (before make test's lanes)
#   make fabric-check-patches   the series applies cleanly to a fresh copy (in make test)
#   make fabric-test            upstream unit tests of the touched packages, every
#                               switch mode, on the patched tree (in make test)
#   make fabric-bench           in-tree BCCSP/SHA-256 benchmarks, Go vs OpenSSL / simd
#   make fabric-verify          check the pinned module's hash only
#   make deps-floor-check       bin/peer, bin/orderer and bin/fabvote link no module
#                               below its security floor (fabric/floors; in make test)

FABRIC_SH := $(ROOT)/fabric/build.sh
FABRIC_ENV = ROOT=$(ROOT) BUILD=$(BUILD) BIN=$(BIN) GO=$(GO)

.PHONY: fabric fabric-stock fabric-modules fabric-check-patches fabric-test fabric-bench fabric-verify deps-floor-check

fabric:
	$(FABRIC_ENV) $(FABRIC_SH) fork

fabric-stock:
	$(FABRIC_ENV) $(FABRIC_SH) stock

fabric-modules:
	$(FABRIC_ENV) $(FABRIC_SH) modules

fabric-check-patches:
	$(FABRIC_ENV) $(FABRIC_SH) check-patches

fabric-test:
	$(FABRIC_ENV) $(FABRIC_SH) test

fabric-bench:
	$(FABRIC_ENV) $(FABRIC_SH) bench

fabric-verify:
	$(FABRIC_ENV) $(FABRIC_SH) verify

deps-floor-check: fabric fabvote
	GO=$(GO) $(GO) run ./fabric/floors/depsfloor $(BIN)/peer $(BIN)/orderer $(BIN)/fabvote

TEST_TARGETS += fabric-check-patches fabric-test deps-floor-check
TEST_BUILD += fabric-modules
