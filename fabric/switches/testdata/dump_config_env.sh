#!/usr/bin/env bash
# dump_config_env.sh ROOT: prints, for every configuration name in
# CONFIGS below, "## NAME" and then what bench/lib.sh's bench_config_env
# prints for it, with ROOT written as $ROOT and BIN as $BIN. The port plan
# is stubbed (FABNET), so sourcing lib.sh builds nothing.
set -euo pipefail
ROOT=$1 BIN=/BIN RUN=/RUN
fake=$(mktemp)
trap 'rm -f "$fake"' EXIT
printf '#!/bin/sh\nprintf "BASE_PORT=1\\nPPROF_PEER=1\\nPPROF_ORDERER=2\\nPPROF_CC=3\\n"\n' >"$fake"
chmod +x "$fake"
FABNET=$fake
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
bases="stock fork-off o1 o2 o3 o4 o5 o6 o7 all all-o4 fork"
names="$BENCH_ALL_CONFIGS"
for b in $bases; do names+=" $b-nobatch $b+gogc200 $b+tuned $b-nobatch+nohistory+batch128"; done
for c in $names; do
	printf '## %s\n' "$c"
	bench_config_env "$c" | sed "s#$ROOT#\$ROOT#g; s#=/BIN#=\$BIN#"
done
for c in fork-off o4 fork; do
	printf '## %s BENCH_PROOF_BATCH=32\n' "$c"
	BENCH_PROOF_BATCH=32 bench_config_env "$c" | sed "s#$ROOT#\$ROOT#g; s#=/BIN#=\$BIN#"
done
