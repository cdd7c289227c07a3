# caliper-bench/caliper.mk — the Caliper 0.6 workspace (see caliper-bench/README.md).
# Included by the top-level Makefile (ROOT, BIN, BUILD, RUN, GO come from there).
#
#   make caliper-install   npm ci: Caliper 0.6.0 + fabric-gateway 1.5.0 from package-lock.json
#   make caliper           the 40k fixed-rate benchmark (CALIPER_BENCH=fixed-40k|sweep|endorse-only,
#                          CALIPER_CONFIGS="stock all" for several configurations, TRIALS=n)
#   make caliper-smoke     500 ballots through Caliper on the benchmark network
#   make caliper-unit      the workspace's own unit tests (node --test)
#
# The benchmark targets (ballots, bench, bench-report, bench-smoke) live in
# bench/bench.mk, included from here until the top-level Makefile includes it.

CALIPER_DIR    := $(ROOT)/caliper-bench
CALIPER_BENCH  ?= fixed-40k
CALIPER_ENV     = ROOT=$(ROOT) BIN=$(BIN) RUN=$(RUN)

.PHONY: caliper caliper-install caliper-smoke caliper-unit

$(CALIPER_DIR)/node_modules/.package-lock.json: $(CALIPER_DIR)/package-lock.json $(CALIPER_DIR)/package.json
	cd $(CALIPER_DIR) && npm ci --no-audit --no-fund --ignore-scripts
	touch $@

caliper-install: $(CALIPER_DIR)/node_modules/.package-lock.json

caliper: caliper-install fabric fabvote
	$(CALIPER_ENV) VOTERS=$(BENCH_VOTERS) $(CALIPER_DIR)/run.sh $(CALIPER_BENCH)

# 1000 cached ballots: bench-smoke casts the first 500 with fabvote bench, this the next 500.
caliper-smoke: caliper-install fabric fabvote
	$(CALIPER_ENV) VOTERS=1000 BALLOTS_OFFSET=500 CALIPER_CONFIGS=$${CALIPER_CONFIGS:-all} $(CALIPER_DIR)/run.sh smoke

caliper-unit:
	cd $(CALIPER_DIR) && node --test test/

-include $(ROOT)/bench/bench.mk
