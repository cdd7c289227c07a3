# verifier-py/verifier.mk — the independent Python verifier of election
# records (verifier-py/README.md). Included by the top-level Makefile (ROOT,
# BUILD come from there).
#
#   make verifier-py-test   create build/verifier-py-venv if needed, install
#                           the verifier into it (editable, with the test
#                           extras) and run its tests (in make test)
#   make verifier-diff-test the Go and the Python verifier on tampered and
#                           mutated records: the same reports (in make test)
#
# The venv sees the system's site packages, so an installed cryptography,
# pytest and jsonschema are used as they are and no network is needed when
# they are present (pip still fetches the build backend, setuptools, for the
# editable install); otherwise pip fetches them from PyPI once.

PYTHON ?= python3
VERIFIER_PY_VENV := $(BUILD)/verifier-py-venv
VERIFIER_PY_STAMP := $(VERIFIER_PY_VENV)/.installed

.PHONY: verifier-py-test

$(VERIFIER_PY_STAMP): $(ROOT)/verifier-py/pyproject.toml
	test -x $(VERIFIER_PY_VENV)/bin/python || $(PYTHON) -m venv --system-site-packages $(VERIFIER_PY_VENV)
	$(VERIFIER_PY_VENV)/bin/python -m pip install -q -e '$(ROOT)/verifier-py[test]'
	touch $@

verifier-py-test: $(VERIFIER_PY_STAMP)
	cd $(ROOT)/verifier-py && $(VERIFIER_PY_VENV)/bin/python -m pytest -q

TEST_TARGETS += verifier-py-test

# Both verifiers on the same records, which must give the same report
# (docs/RECORD.md 7): every tampered record of TestTamper and TestTrackers,
# both decoders of spoiled ballots on mutants of them, the committed
# mutants that once made them differ, then new mutants of a real record for
# VERIFIER_DIFF_BUDGET (in make test).
# make test draws its mutants from one seed, so that a slower machine runs
# a prefix of the same mutants and a run is reproducible; VERIFIER_DIFF_SEED=
# (empty) draws a new seed from the clock, to explore.
VERIFIER_DIFF_BUDGET ?= 50s
VERIFIER_DIFF_SEED   ?= 1
.PHONY: verifier-diff-test
verifier-diff-test: $(VERIFIER_PY_STAMP)
	FABVOTE_DIFFERENTIAL=1 FABVOTE_PYVERIFY=$(VERIFIER_PY_VENV)/bin/python FABVOTE_DIFF_BUDGET=$(VERIFIER_DIFF_BUDGET) \
		FABVOTE_DIFF_SEED=$(VERIFIER_DIFF_SEED) \
		$(GO) test -count=1 -timeout 20m -v -run '^(TestTamper|TestTrackers|TestDifferential|TestDifferentialCommitOrder|TestDifferentialSpoiled)$$' ./internal/record/ | grep -v '^=== RUN'

TEST_TARGETS += verifier-diff-test
TEST_BUILD += $(VERIFIER_PY_STAMP)

# `make demo` verifies the exported record with this verifier too.
demo demo-contests-test: $(VERIFIER_PY_STAMP)
demo demo-contests-test: export PYVERIFY := $(VERIFIER_PY_VENV)/bin/python

# The end-to-end tests verify the real network's record with it too.
e2e-test e2e-test-o4: $(VERIFIER_PY_STAMP)
e2e-test e2e-test-o4: export FABVOTE_PYVERIFY := $(VERIFIER_PY_VENV)/bin/python

# README.md's steps by hand run `python3 -m fabvote_verifier`: this venv's python3 first on PATH.
readme-test: $(VERIFIER_PY_STAMP)
readme-test: export PYVERIFY_BIN := $(VERIFIER_PY_VENV)/bin
