# cmd/fabvote/fabvote.mk — the fabvote CLI, `make demo` and the end-to-end test.
# Included by the top-level Makefile (ROOT, BIN, BUILD, RUN, GO come from there).
#
#   make fabvote      build bin/fabvote
#   make demo         a whole election on a fresh solo-org network (VOTERS=1000 by default)
#   make e2e-test     the end-to-end test on a real three-orgs network (in make test)
#   make e2e-test-o4  the same with the ballot validation plugin on (O-IV: cheap
#                     endorsement, proofs checked by every peer at validation;
#                     colluding endorsers' writes refused); own run dir and ports
#                     (E2E_O4_BASE_PORT, 9050), about 3 minutes (in make test)

VOTERS ?= 1000
export VOTERS

.PHONY: fabvote demo e2e-test e2e-test-o4

# The version `fabvote version` prints; the patch series comes from fabric/.
FABVOTE_VERSION ?= $(shell git -C $(ROOT) describe --always --dirty 2>/dev/null || echo dev)

# The CLI's proof checks (verify, tally, trustees' recomputation) touch public
# values only and run on GMP where the chaincode does (chaincode/chaincode.mk);
# its computations on secrets stay on math/big in every build.
fabvote:
	$(GO) build $(if $(CHAINCODE_GO_TAGS),-tags $(CHAINCODE_GO_TAGS)) -ldflags "-X main.version=$(FABVOTE_VERSION)" -o $(BIN)/fabvote ./cmd/fabvote

demo: fabric fabvote
	ROOT=$(ROOT) BIN=$(BIN) RUN=$(RUN) $(ROOT)/scripts/demo.sh

e2e-test: fabric fabvote
	ROOT=$(ROOT) BIN=$(BIN) BUILD=$(BUILD) GO=$(GO) $(ROOT)/scripts/e2e.sh

e2e-test-o4: fabric fabvote
	ROOT=$(ROOT) BIN=$(BIN) BUILD=$(BUILD) GO=$(GO) FABVOTE_VALIDATION_PLUGIN=ballotvscc \
		E2E_RUN=$(BUILD)/e2e-o4-run E2E_BASE_PORT=$(or $(E2E_O4_BASE_PORT),9050) \
		E2E_RUN_FLAGS="-run TestElection" $(ROOT)/scripts/e2e.sh

TEST_TARGETS += e2e-test e2e-test-o4
