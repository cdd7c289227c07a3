#!/usr/bin/env python3
"""Unit tests of profiles.py and of the report's profile tables (run by `make bench-report-unit`)."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profiles  # noqa: E402
import report  # noqa: E402

# `go tool pprof -raw` of two samples; location 2 carries an inlined frame.
RAW = """PeriodType: cpu nanoseconds
Period: 10000000
Duration: 20.0
Samples:
samples/count cpu/nanoseconds
          3   30000000: 1 2 3
          1   10000000: 4 3
Locations
     1: 0x497bc5 M=1 crypto/internal/fips140/nistec.p256PointDoubleAsm x.s:1:0 s=0
     2: 0x7e5aa4 M=1 crypto/ecdsa.VerifyASN1 ecdsa.go:1:0 s=0
             github.com/hyperledger/fabric/bccsp/sw.verifyECDSA ecdsa.go:2:0 s=0
     3: 0x7f7809 M=1 github.com/hyperledger/fabric/core/endorser.(*Endorser).ProcessProposal endorser.go:1:0 s=0
     4: 0x7f7425 M=1 runtime.mallocgc malloc.go:1:0 s=0
Mappings
1: 0x400000/0x1000000/0x0 peer
"""

GW = "github.com/hyperledger/fabric/internal/pkg/gateway."
FAB = "github.com/hyperledger/fabric/"


class ParseRaw(unittest.TestCase):
    def test_samples_with_inlined_frames(self):
        s = profiles.parse_raw(RAW)
        self.assertEqual(s[0], (30000000, ["crypto/internal/fips140/nistec.p256PointDoubleAsm", "crypto/ecdsa.VerifyASN1",
                                           FAB + "bccsp/sw.verifyECDSA", FAB + "core/endorser.(*Endorser).ProcessProposal"]))
        self.assertEqual(s[1], (10000000, ["runtime.mallocgc", FAB + "core/endorser.(*Endorser).ProcessProposal"]))

    def test_shares_add_up(self):
        sh = profiles.shares(profiles.parse_raw(RAW), profiles.categorize, profiles.CATEGORY_NAMES)
        self.assertEqual(sh["ECDSA"], 75.0)
        self.assertEqual(sh["allocation"], 25.0)
        self.assertAlmostEqual(sum(sh.values()), 100.0)


class PeerPhase(unittest.TestCase):
    # Stacks leaf first, as parse_raw returns them.
    CASES = [
        ("gateway endorsement goroutine", ["crypto/ecdsa.Verify", FAB + "core/endorser.(*Endorser).ProcessProposal",
                                           GW + "(*Server).planFromFirstEndorser.func1"], "endorsement"),
        ("endorse request decoding", ["google.golang.org/protobuf/proto.Unmarshal", "github.com/hyperledger/fabric-protos-go/gateway._Gateway_Endorse_Handler",
                                      "google.golang.org/grpc.(*Server).processUnaryRPC"], "endorsement"),
        ("simulation reads the ledger", [FAB + "core/ledger/kvledger.(*kvLedger).NewTxSimulator", FAB + "core/chaincode.(*Handler).HandleGetState"], "endorsement"),
        ("validation", ["crypto/ecdsa.Verify", FAB + "core/committer/txvalidator/v20.(*TxValidator).validateTx"], "validation & commit"),
        ("lifecycle read at validation", [FAB + "core/chaincode/lifecycle.(*Cache).ChaincodeInfo", FAB + "core/committer/txvalidator/v20.(*TxValidator).Validate.func1.1"],
         "validation & commit"),
        ("fork's proof workers", ["math/big.nat.expNN", FAB + "fabvote/mod/crypto/zkp.runParallel.func1"], "validation & commit"),
        ("state DB compaction", ["github.com/syndtr/goleveldb/leveldb.(*DB).tCompaction"], "validation & commit"),
        ("block delivery", [FAB + "internal/pkg/peer/blocksprovider.(*Deliverer).DeliverBlocks.func1"], "block delivery & gossip"),
        ("submit", [GW + "(*Server).Submit.func1"], "submit & block events"),
        ("block events", [FAB + "common/deliver.(*Handler).deliverBlocks.func2"], "submit & block events"),
        ("commit status reads the ledger", ["github.com/syndtr/goleveldb/leveldb.(*DB).Get", FAB + "core/ledger/kvledger.(*kvLedger).GetTxValidationCodeByTxID",
                                            GW + "(*Server).CommitStatus"], "submit & block events"),
        ("block events read the block store", [FAB + "common/ledger/blkstorage.(*blockfileMgr).retrieveBlockByNumber",
                                               FAB + "common/deliver.(*Handler).deliverBlocks"], "submit & block events"),
        ("gRPC writer", ["crypto/tls.(*Conn).Write", "google.golang.org/grpc/internal/transport.(*loopyWriter).run"], "gRPC transport & TLS"),
        ("GC", ["runtime.scanobject", "runtime.gcBgMarkWorker"], "GC & runtime"),
        ("anything else", ["main.main"], "other"),
    ]

    def test_phases(self):
        for name, stack, want in self.CASES:
            with self.subTest(name):
                self.assertEqual(profiles.phase(stack), want)

    def test_every_phase_is_named(self):
        self.assertEqual(set(profiles.PHASE_NAMES), {w for _, _, w in self.CASES})


class ReportFromCommittedText(unittest.TestCase):
    """A results directory as docs/bench/raw keeps it: summaries and text, no .pprof."""

    def test_tables_from_summaries(self):
        with tempfile.TemporaryDirectory() as d:
            for sub in ("profiles", "cpu", "main"):
                os.mkdir(os.path.join(d, sub))
            phases = {n: 0.0 for n in profiles.PHASE_NAMES}
            phases.update({"endorsement": 40.0, "validation & commit": 35.0, "other": 25.0})
            cats = {n: 0.0 for n in profiles.CATEGORY_NAMES}
            cats["ECDSA"] = 100.0
            for proc, extra in (("peer", {"phases": phases}), ("orderer", {})):
                with open(os.path.join(d, "profiles", f"stock-{proc}.summary.json"), "w") as f:
                    json.dump(dict(cpu_s=16.0, wall_s=20.0, shares=cats, **extra), f)
            open(os.path.join(d, "profiles", "stock-peer.top.txt"), "w").close()
            with open(os.path.join(d, "cpu", "stock-t1.json"), "w") as f:
                json.dump({"peer0.party1": 30.0, "orderer0": 9.0}, f)
            with open(os.path.join(d, "main", "stock-t1.json"), "w") as f:
                json.dump({"succeeded": 10000}, f)
            lines = report.profile_section([d], d)
        rows = [r for r in lines if r.startswith("| `stock`")]
        self.assertEqual(len(rows), 3)  # orderer, peer, the peer's phases
        self.assertIn("| orderer | 16.0 / 20 | 100.0 % |", rows[0])
        self.assertTrue(rows[0].endswith("| – |"))  # no text view written for the orderer
        self.assertIn("[top](profiles/stock-peer.top.txt)", rows[1])
        # 30 CPU s over 10,000 ballots = 3.00 ms; 40 % and 35 % of it.
        self.assertIn("| 3.00 | 1.20, 1.05 |", rows[2])


if __name__ == "__main__":
    unittest.main()
