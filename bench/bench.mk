# bench/bench.mk — the end-to-end benchmark (docs/bench/end-to-end.md).
# Included by caliper-bench/caliper.mk (and safe to include again from the top Makefile).
#
#   make ballots VOTERS=40000   pre-generate the benchmark election and N ballots (cached in .cache/ballots)
#   make bench                  every configuration side by side with fabvote bench (bench/run-matrix.sh;
#                               BENCH_CONFIGS, TRIALS, VOTERS, RATE, MODE, SWEEP_RATES, PROFILE_CONFIGS)
#   make bench-report           docs/bench/end-to-end.md generated section + docs/bench/*.png from RESULTS
#                               (default: the latest run in .cache/bench/results)
#   make bench-report-unit      the report's statistics (paired ratios and their intervals) and its
#                               reading of CPU profiles (in make test)
#   make bench-verify-count     signature verifications per ballot in the orderer and the peer, over
#                               fresh networks (bench/verify-count.sh; CONFIG, TRIALS, COUNT)
#   make bench-gate             the commit gate end to end (Paneru 2021, Table 6.1): the delaywork
#                               chaincode taking D = 50/200/500 ms, with the lock and lockless (bench/gate.sh;
#                               TRIALS, DELAYS, CONCURRENCY, COUNT, RATE, OPEN_COUNT)
#   make bench-box              the ballot box's latency overhead over its own path without it, in
#                               alternating pairs of runs (bench/box.sh; BOX_TRIALS, BOX_COUNT, BOX_RATE,
#                               BOX_TARGET_MS, BOX_BASELINE, BOX_CONFIG)
#   make bench-smoke            ~500 ballots through fabvote bench and 500 through Caliper (in make test)

ifndef FABVOTE_BENCH_MK
FABVOTE_BENCH_MK := 1

BENCH_ENV = ROOT=$(ROOT) BIN=$(BIN) RUN=$(RUN) GO=$(GO)
# VOTERS on the command line wins; otherwise the thesis's 40,000 (the CLI's
# fragment exports VOTERS=1000 for the demo, which must not leak in here).
BENCH_VOTERS ?= $(if $(filter command line environment,$(origin VOTERS)),$(VOTERS),40000)
RESULTS  ?= $(ROOT)/.cache/bench/results/latest

.PHONY: ballots bench bench-box bench-gate bench-report bench-report-unit bench-smoke bench-verify-count

ballots: fabvote
	$(BENCH_ENV) VOTERS=$(BENCH_VOTERS) $(ROOT)/bench/ballots.sh

bench: fabric fabric-stock fabvote
	$(BENCH_ENV) VOTERS=$(BENCH_VOTERS) $(ROOT)/bench/run-matrix.sh

bench-report:
	$(BENCH_ENV) $(ROOT)/bench/report/report.sh $(RESULTS)

bench-report-unit:
	python3 $(ROOT)/bench/report/report_test.py
	python3 $(ROOT)/bench/report/profiles_test.py
	python3 $(ROOT)/bench/report/gate_test.py
	python3 $(ROOT)/bench/against_test.py
	python3 $(ROOT)/bench/report/box_test.py

bench-verify-count: fabric fabric-stock fabvote
	$(BENCH_ENV) $(ROOT)/bench/verify-count.sh

bench-gate: fabric fabvote
	$(BENCH_ENV) $(ROOT)/bench/gate.sh

bench-box: fabric fabvote
	$(BENCH_ENV) $(ROOT)/bench/box.sh

bench-smoke: fabric fabvote caliper-install
	$(BENCH_ENV) $(ROOT)/bench/smoke.sh

TEST_NET_TARGETS += bench-smoke
TEST_TARGETS += bench-report-unit caliper-unit
TEST_BUILD += caliper-install

endif
