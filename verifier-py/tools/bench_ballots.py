"""Measure the ballot-check throughput (decode, key, style and contests,
token, voter signature, Fiat–Shamir challenges, batched validity proofs) and the block-parsing cost.

    python tools/bench_ballots.py [--record DIR] [--copies 4000] [--workers 2]

The ballots of a record are replicated: every copy is checked in full (the
batch weights differ per copy), so the cost per ballot is that of distinct
ballots of the same manifest."""

import argparse
import gzip
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from fabvote_verifier import ballots as ballotcheck  # noqa: E402
from fabvote_verifier.election import ballot_prefix, parse_record, prepare_manifest  # noqa: E402
from fabvote_verifier.fabric import parse_block, parse_transactions  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--record", default=os.path.join(os.path.dirname(__file__), "..", "..", "internal", "record",
                                                 "testdata", "records", "good"))
ap.add_argument("--copies", type=int, default=4000)
ap.add_argument("--concurrency", "--workers", dest="workers", type=int, default=os.cpu_count() or 1)
a = ap.parse_args()

raw_manifest = open(os.path.join(a.record, "manifest.json"), "rb").read()
prep = prepare_manifest(raw_manifest)
prefix = ballot_prefix(prep.manifest.election_id)
found = []
t0 = time.time()
ntx = 0
bdir = os.path.join(a.record, "blocks")
for name in sorted(os.listdir(bdir)):
    blk = parse_block(gzip.decompress(open(os.path.join(bdir, name), "rb").read()))
    for tx in parse_transactions(blk):
        ntx += 1
        for w in tx.writes:
            if w.key.startswith(prefix):
                found.append((w.key[len(prefix):-1], parse_record(w.value)[1]))
parse_s = time.time() - t0
print(f"parsed {ntx} transactions in {parse_s:.3f} s ({parse_s / max(ntx, 1) * 1e3:.2f} ms each)")
items = [(i, found[i % len(found)][0], found[i % len(found)][1]) for i in range(a.copies)]
t0 = time.time()
res = ballotcheck.check_all(raw_manifest, prep, items, a.workers)
dt = time.time() - t0
bad = sum(1 for v in res if v.kind)
n = prep.pk.n.bit_length()
shape = ", ".join(f"{c.id} ({len(c.options)} options, {c.encoding})" for c in prep.manifest.contests)
print(f"N = {n} bits, contests {shape}, {len(prep.manifest.styles)} style(s), {a.workers} worker(s): "
      f"{a.copies} ballots in {dt:.1f} s = {a.copies / dt:.0f} ballots/s ({bad} rejected)")
print(f"extrapolated for 40000 ballots: {40000 / (a.copies / dt):.0f} s")
