#!/usr/bin/env bash
# ballots.sh — the benchmark's pre-generated ballots (`make ballots VOTERS=N`).
#
# One fixed election for every benchmark run: id $BENCH_ELECTION (bench-2048),
# 4 candidates, N = 2048 bits, a single Paillier key, max-voters 100000 (so the
# vote encoding, and with it the proof's cost, does not depend on N), and a
# voting window wide open (2026-01-01 to 2036-01-01). Its manifest and keys live in
# $BENCH_CACHE/$BENCH_ELECTION/; each ballot set of N voters in
# $BENCH_CACHE/$BENCH_ELECTION-N/ballots.bin (registered offline: the EA key
# signs each voter's token; choices random). Both are created once and reused
# by `fabvote bench`, Caliper and every trial, so stock and fork always cast
# the same ballots. Prints the ballot set's directory on the last line.
set -euo pipefail
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BIN=${BIN:-$ROOT/bin}
VOTERS=${VOTERS:-1000}
BENCH_ELECTION=${BENCH_ELECTION:-bench-2048}
BENCH_CACHE=${BENCH_CACHE:-$ROOT/.cache/ballots}
FV=$BIN/fabvote
[[ $VOTERS =~ ^[1-9][0-9]*$ ]] || { echo "ballots.sh: VOTERS=$VOTERS: want a positive number" >&2; exit 2; }
((VOTERS <= 100000)) || { echo "ballots.sh: VOTERS=$VOTERS exceeds the benchmark election's max-voters 100000" >&2; exit 2; }
[[ -x $FV ]] || { echo "ballots.sh: $FV not built (make fabvote)" >&2; exit 1; }

EDIR=$BENCH_CACHE/$BENCH_ELECTION
# An election of an older manifest format (each version changed what a
# ballot binds; fabvote refuses all but the current one) is rebuilt, and the
# ballot sets follow, as their manifest copy differs. `fabvote version` names
# the current version; the canonical manifest begins with it.
MANIFEST_HEAD="{\"version\":$("$FV" version | sed -n 's/^formats: manifest \([0-9]*\),.*/\1/p'),"
if [[ -f $EDIR/manifest.json ]] && [[ $(head -c ${#MANIFEST_HEAD} "$EDIR/manifest.json") != "$MANIFEST_HEAD" ]]; then
	echo "ballots.sh: $EDIR is of an older format; recreating it" >&2
	rm -rf "$EDIR"
fi
if [[ ! -f $EDIR/manifest.json ]]; then
	echo "ballots.sh: creating the benchmark election $BENCH_ELECTION in $EDIR" >&2
	rm -rf "$EDIR.tmp"
	mkdir -p "$BENCH_CACHE"
	"$FV" election create --election "$BENCH_ELECTION" --title "fabvote benchmark" --candidates Alice,Bob,Carol,Dave \
		--max-voters 100000 --bits 2048 --start 2026-01-01T00:00:00Z --end 2036-01-01T00:00:00Z --out "$EDIR.tmp" >&2
	mv "$EDIR.tmp" "$EDIR"
fi

SDIR=$BENCH_CACHE/$BENCH_ELECTION-$VOTERS
if [[ -f $SDIR/ballots.bin && -f $SDIR/manifest.json ]] && cmp -s "$SDIR/manifest.json" "$EDIR/manifest.json"; then
	echo "ballots.sh: reusing $VOTERS ballots in $SDIR" >&2
else
	echo "ballots.sh: generating $VOTERS ballots into $SDIR" >&2
	mkdir -p "$SDIR"
	rm -f "$SDIR/ballots.bin"
	"$FV" ballot --bulk --manifest "$EDIR/manifest.json" --voters "$VOTERS" --ea-key "$EDIR/ea.key" \
		--choices random --out "$SDIR/ballots.bin.new" --choices-out "$SDIR/choices.csv" >&2
	cp "$EDIR/manifest.json" "$SDIR/manifest.json"
	mv "$SDIR/ballots.bin.new" "$SDIR/ballots.bin"
fi
echo "$SDIR"
