#!/usr/bin/env python3
"""profiles.py — the CPU profiles of a `make bench` run as text that can be committed.

    profiles.py RESULTS_DIR...

For every NAME.pprof in RESULTS_DIR/profiles (bench/run-matrix.sh,
PROFILE_CONFIGS) it writes beside it:

    NAME.top.txt           `go tool pprof -top -cum` of the whole process
    NAME-PHASE.top.txt     (peers) the same, restricted to one phase of the peer's
                           work: endorsement, or validation and commit
    NAME.summary.json      CPU and wall seconds, the share of each CPU category
                           and (peers) of each phase

bench/report reads the summaries, so a results directory committed without its
binary .pprof files (docs/bench/raw/) still renders its tables. Only the
standard library and `go tool pprof` are needed (GO names the go binary).
"""
import json
import os
import re
import shlex
import subprocess
import sys

GO = os.environ.get("GO", "go")
TOP_NODES = 60

# CPU categories (the shape of the thesis's Figure 5.1). STACK categories claim
# a sample if any frame of its stack matches (work done inside them, whatever
# called it), first match in this order; LEAF categories look only at the
# innermost non-runtime frame (every handler runs under gRPC frames, so gRPC
# claims only time spent in its own code).
STACK_CATEGORIES = [
    ("ECDSA", r"crypto/ecdsa|fips140/ecdsa|fips140/nistec|crypto/internal/nistec|osslecdsa|golang-fips/openssl|crypto/elliptic"),
    ("SHA-256", r"crypto/sha256|fips140/sha256|sha256-simd|sha256x"),
    ("Paillier & proofs (math/big, GMP)", r"math/big|fabvote/fabvote/crypto/|fabvote/fabvote/election|fabvote/mod/crypto/"),
    ("ledger & state DB", r"goleveldb|kvledger|statedb|blkstorage|txmgr|fileledger|blockledger"),
    ("GC", r"^runtime\.(gcBgMarkWorker|bgsweep|bgscavenge|gcDrain|markroot|scanobject)"),
]
LEAF_CATEGORIES = [
    ("gRPC, TLS, protobuf", r"google\.golang\.org/grpc|google\.golang\.org/protobuf|golang\.org/x/net/http2|crypto/tls|crypto/aes|crypto/internal/fips140/aes|golang/protobuf"),
    ("syscalls & scheduler", r"^syscall\.|^internal/poll|^runtime\.(futex|epoll|usleep|nanotime|procyield|osyield|mcall|park_m|schedule|findRunnable|netpoll)"),
    ("allocation", r"^runtime\.(mallocgc|memclr|memmove|growslice|newobject|makeslice)"),
]
CATEGORY_NAMES = [c for c, _ in STACK_CATEGORIES + LEAF_CATEGORIES] + ["other"]

# Phases of a peer's work, by the goroutine a sample ran in: any frame of the
# stack, first match in this order. Endorsement, then the gateway's submit and
# block events, come before validation and commit because they also read the
# ledger and check signatures; the gateway runs each
# endorsement on a goroutine of its own (planFromFirstEndorser.func1), and the
# fork's validation plugin verifies proofs on worker goroutines (zkp), whose
# stacks name only their own package.
ENDORSEMENT = (r"internal/pkg/gateway\.\(\*Server\)\.(Endorse|Evaluate|planFromFirstEndorser)|core/endorser\.|"
               r"core/chaincode\.|_Gateway_(Endorse|Evaluate)_Handler|_Endorser_ProcessProposal_Handler")
COMMIT = (r"core/committer|gossip/privdata\.|gossip/state\.\(\*GossipStateProviderImpl\)\.(deliverPayloads|commitBlock)|"
          r"core/ledger|goleveldb|fabric/fabvote/mod/|fabric/fabvote/ballotvscc")
SUBMIT = (r"internal/pkg/gateway\.\(\*Server\)\.(Submit|CommitStatus|ChaincodeEvents)|"
          r"_Gateway_(Submit|CommitStatus|ChaincodeEvents)_Handler|_Deliver_|common/deliver\.|core/peer\.\(\*DeliverServer\)")
PEER_PHASES = [
    ("endorsement", ENDORSEMENT),
    ("submit & block events", SUBMIT),
    ("validation & commit", COMMIT),
    ("block delivery & gossip", r"core/deliverservice|peer/blocksprovider|fabric/gossip/"),
    ("gRPC transport & TLS", r"google\.golang\.org/grpc|golang\.org/x/net/http2|crypto/tls"),
    ("GC & runtime", r"^runtime\."),
]
PHASE_NAMES = [p for p, _ in PEER_PHASES] + ["other"]
# The focused views written as text: (file suffix, pprof filter flags).
PEER_VIEWS = [("endorsement", ["-focus", ENDORSEMENT]), ("commit", ["-focus", COMMIT, "-ignore", ENDORSEMENT + "|" + SUBMIT])]


def parse_raw(text):
    """Samples of `go tool pprof -raw`: [(value, [function names, leaf first])]."""
    samples, locs, mode, cur = [], {}, None, None
    for line in text.split("\n"):
        if line.startswith("Samples:"):
            mode = "s"
            continue
        if line.startswith("Locations"):
            mode = "l"
            continue
        if line.startswith("Mappings"):
            mode = None
            continue
        if mode == "s":
            m = re.match(r"\s*(\d+)\s+(\d+):\s*(.*)$", line)
            if m:
                samples.append((int(m.group(2)), [int(x) for x in m.group(3).split()]))
        elif mode == "l":
            m = re.match(r"\s*(\d+):\s+0x[0-9a-f]+\s+M=\d+\s+(\S+)", line)
            if m:
                cur = int(m.group(1))
                locs[cur] = [m.group(2)]
            else:
                m = re.match(r"\s+(\S+)\s+\S+:\d+", line)  # inlined frames continue the location
                if m and cur is not None and not line.strip().startswith("0x"):
                    locs[cur].append(m.group(1))
    out = []
    for v, ids in samples:
        fns = []
        for i in ids:
            fns.extend(locs.get(i, ["?"]))
        out.append((v, fns))
    return out


def categorize(fns):
    for name, rx in STACK_CATEGORIES:
        if any(re.search(rx, f) for f in fns):
            return name
    leaf = next((f for f in fns if not f.startswith("runtime.")), fns[0] if fns else "")
    for name, rx in LEAF_CATEGORIES:
        if re.search(rx, leaf) or (fns and re.search(rx, fns[0])):
            return name
    return "other"


def phase(fns):
    for name, rx in PEER_PHASES:
        if any(re.search(rx, f) for f in fns):
            return name
    return "other"


def shares(samples, classify, names):
    total = sum(v for v, _ in samples)
    acc = {n: 0 for n in names}
    for v, fns in samples:
        acc[classify(fns)] += v
    return {n: round(100.0 * v / total, 3) for n, v in acc.items()}


def split_name(path):
    """(configuration, process) of CONFIG-PROCESS.pprof or CONFIG-PROCESS.summary.json, or None."""
    m = re.match(r"(.+)-(peer|orderer|chaincode)\.(pprof|summary\.json)$", os.path.basename(path))
    return (m.group(1), m.group(2)) if m else None


def process_of(path):
    """'peer', 'orderer' or 'chaincode' from CONFIG-PROCESS.pprof, or None."""
    n = split_name(path)
    return n[1] if n and path.endswith(".pprof") else None


def pprof(args):
    p = subprocess.run([GO, "tool", "pprof"] + args, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"go tool pprof {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout


def summarize(prof):
    """The summary of one profile: {cpu_s, wall_s, shares, phases (peers only)}."""
    raw = pprof(["-raw", prof])
    samples = parse_raw(raw)
    total = sum(v for v, _ in samples)
    if total == 0:
        raise RuntimeError(f"{prof}: no samples")
    dur = re.search(r"Duration: ([0-9.]+)", raw)
    s = {"cpu_s": total / 1e9, "wall_s": float(dur.group(1)) if dur else None,
         "shares": shares(samples, categorize, CATEGORY_NAMES)}
    if process_of(prof) == "peer":
        s["phases"] = shares(samples, phase, PHASE_NAMES)
    return s


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def write_texts(prof):
    """NAME.top.txt, the peer's phase views and NAME.summary.json beside PROF."""
    base = prof[:-len(".pprof")]
    views = [("", [])] + ([("-" + suffix, flt) for suffix, flt in PEER_VIEWS] if process_of(prof) == "peer" else [])
    for suffix, flt in views:
        cmd = ["-top", "-cum", "-nodecount", str(TOP_NODES)] + flt
        head = f"# go tool pprof {' '.join(shlex.quote(a) for a in cmd)} {os.path.basename(prof)}\n"
        write_atomic(f"{base}{suffix}.top.txt", head + pprof(cmd + [prof]))
    write_atomic(base + ".summary.json", json.dumps(summarize(prof), indent=1) + "\n")


def load_summary(prof_or_summary):
    """The summary beside a .pprof (or named directly); computed when missing."""
    base = re.sub(r"\.(pprof|summary\.json)$", "", prof_or_summary)
    if os.path.exists(base + ".summary.json"):
        with open(base + ".summary.json") as f:
            return json.load(f)
    return summarize(base + ".pprof")


def main(dirs):
    if not dirs:
        sys.exit("usage: profiles.py RESULTS_DIR...")
    for d in dirs:
        pdir = os.path.join(d, "profiles")
        if not os.path.isdir(pdir):
            sys.exit(f"profiles: no {pdir} (run make bench with PROFILE_CONFIGS)")
        for f in sorted(os.listdir(pdir)):
            if f.endswith(".pprof") and process_of(f):
                write_texts(os.path.join(pdir, f))
                print(f"profiles: {os.path.join(pdir, f[:-len('.pprof')])}.top.txt and its summary", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
