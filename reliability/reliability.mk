# reliability/reliability.mk — faults and hostile input.
# Included by the top-level Makefile (ROOT, BIN, GO, RUN come from there).
# docs/RELIABILITY.md describes each test and what it measured.
#
#   make fuzz-smoke [FUZZ_BUDGET=102 | FUZZTIME=10s]   every `func Fuzz…` of the module, one after another
#   make reliability-isolation       kvtransfer invariant under FABVOTE_COMMIT_GATE=lockless, then locked
#   make reliability-access          access control, secrets on the ledger and in logs, TLS everywhere
#   make reliability-crash           kill -9 peer / Raft leader / chaincode service while casting
#   make reliability-limits          oversize ballot, limits as configured, optional overload
#   make reliability-overload        2x the saturation rate for 60 s (not in make test)
#   make reliability                 isolation, access, limits, crash
#
# Knobs: RELIABILITY_BALLOTS (ballots cast per crash scenario; 500 in make test, 5000 for
# the documented run), RELIABILITY_BALLOT_DIR (a pre-generated ballot set, e.g.
# .cache/ballots/bench-2048-10000 from `make ballots`), RELIABILITY_DEPS
# (what to build first; `RELIABILITY_DEPS=` skips make fabric), REL_BASE_PORT.

# 102 s of fuzzing shared by every target (34 targets: 3 s each, the least
# FUZZ_MIN gives, each with its build); past 34 a new target costs make test
# its build and 3 s. FUZZTIME=10s gives each its own time.
FUZZ_BUDGET         ?= 102
FUZZTIME            ?=
FUZZMINIMIZE        ?= 200x
RELIABILITY_BALLOTS ?= 500
RELIABILITY_DEPS    ?= fabric
# REL_BASE_PORT moves the port plan's stack reliability (network/portplan); empty: the plan's.
REL_BASE_PORT       ?=
REL_TAGS            := -tags reliability
REL_GOTEST          = $(GO) test $(REL_TAGS) -count=1 -v -timeout 30m ./reliability/

export RELIABILITY_BALLOTS REL_BASE_PORT

.PHONY: fuzz-smoke reliability reliability-isolation reliability-access reliability-crash reliability-limits reliability-overload

fuzz-smoke:
	GO=$(GO) FUZZ_BUDGET=$(FUZZ_BUDGET) FUZZTIME=$(FUZZTIME) FUZZMINIMIZE=$(FUZZMINIMIZE) $(ROOT)/reliability/fuzz-smoke.sh

reliability-isolation: $(RELIABILITY_DEPS)
	$(REL_GOTEST) -run '^TestIsolation'

reliability-access: $(RELIABILITY_DEPS)
	$(REL_GOTEST) -run '^TestAccess'

reliability-crash: $(RELIABILITY_DEPS)
	$(REL_GOTEST) -run '^TestCrash'

reliability-limits: $(RELIABILITY_DEPS)
	$(REL_GOTEST) -run '^TestLimits'

reliability-overload: $(RELIABILITY_DEPS)
	RELIABILITY_OVERLOAD=1 $(REL_GOTEST) -run '^TestOverload'

reliability: $(RELIABILITY_DEPS)
	$(REL_GOTEST) -run '^(TestIsolation|TestAccess|TestLimits|TestCrash)$$'

TEST_TARGETS += fuzz-smoke
TEST_NET_TARGETS += reliability
