package record_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/record"
)

// pyKeyOriginCheck reads a JSON list of hex manifests on stdin and prints,
// for each, where verifier-py refuses it: "V11 CODE" (the manifest's own
// check), "V33 CODE" (the key's origin) or "" (both pass).
const pyKeyOriginCheck = `
import json, sys
from fabvote_verifier.election import ElectionError, prepare_manifest
from fabvote_verifier.keyorigin import check_key_origin
out = []
for h in json.load(sys.stdin):
    try:
        prep = prepare_manifest(bytes.fromhex(h))
    except ElectionError as e:
        out.append("V11 " + e.code)
        continue
    try:
        check_key_origin(prep)
        out.append("")
    except ElectionError as e:
        out.append("V33 " + e.code)
print(json.dumps(out))
`

// TestDifferentialKeyOrigin runs Go's and verifier-py's manifest check
// (V11) and key-origin check (V33) on the distributed record's manifest
// and on mutants of its key ceremony: the same outcome for every one.
func TestDifferentialKeyOrigin(t *testing.T) {
	py := pyVerifier(t)
	if py == "" {
		t.Skip("FABVOTE_PYVERIFY is not set: no Python verifier to compare with")
	}
	raw, err := os.ReadFile(filepath.Join(fixturesDir, "distributed", record.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	mutants := keyOriginMutants(t, raw)
	got := pyKeyOriginOutcomes(t, py, mutants)
	seen := map[string]int{}
	for i, b := range mutants {
		want := goKeyOriginOutcome(b)
		seen[want]++
		if got[i] != want {
			t.Errorf("mutant %d: Go %q, Python %q", i, want, got[i])
		}
	}
	for _, o := range []string{"", "V11 MANIFEST", "V33 MANIFEST"} {
		if seen[o] == 0 {
			t.Errorf("no mutant has the outcome %q: the mutants miss a kind", o)
		}
	}
}

func goKeyOriginOutcome(b []byte) string {
	m, err := election.ParseManifest(b)
	if err != nil {
		return "V11 " + election.CodeOf(err)
	}
	if err := m.CheckKeyOrigin(); err != nil {
		return "V33 " + election.CodeOf(err)
	}
	return ""
}

// keyOriginMutants are the manifest raw and, encoded canonically, each
// kind of change to its key origin that V11 or V33 must refuse.
func keyOriginMutants(t *testing.T, raw []byte) [][]byte {
	flipLast := func(b []byte) []byte { b = bytes.Clone(b); b[len(b)-1] ^= 1; return b }
	edits := []func(m *election.Manifest){
		func(m *election.Manifest) {},
		func(m *election.Manifest) { m.KeyCeremony.ModulusProof = flipLast(m.KeyCeremony.ModulusProof) },
		func(m *election.Manifest) { st := m.KeyCeremony.SelfTest; st[0], st[1] = st[1], st[0] },
		func(m *election.Manifest) { m.KeyCeremony.ID = flipLast(m.KeyCeremony.ID) },
		func(m *election.Manifest) { m.KeyCeremony.SelfTest[2] = flipLast(m.KeyCeremony.SelfTest[2]) },
		func(m *election.Manifest) {
			p := bytes.Clone(m.KeyCeremony.ModulusProof)
			p[len("FVPM")+1+256] |= 4 // the first challenge's flags, after the magic, the version and w (256 bytes for the 2048-bit N): an unknown bit
			m.KeyCeremony.ModulusProof = p
		},
		func(m *election.Manifest) { m.KeyOrigin = election.KeyOriginDealer },
		func(m *election.Manifest) { m.KeyCeremony = nil },
		func(m *election.Manifest) { m.KeyOrigin = "trusted" },
		func(m *election.Manifest) { m.KeyCeremony.ID = m.KeyCeremony.ID[1:] },
		func(m *election.Manifest) { p := m.KeyCeremony.ModulusProof; m.KeyCeremony.ModulusProof = p[:len(p)-1] },
		func(m *election.Manifest) { m.KeyCeremony.SelfTest = m.KeyCeremony.SelfTest[1:] },
		func(m *election.Manifest) { m.KeyCeremony.SelfTest[1] = m.KeyCeremony.SelfTest[1][:10] },
		func(m *election.Manifest) { m.Threshold = nil },
	}
	var out [][]byte
	for _, edit := range edits {
		m, err := election.ParseManifest(raw)
		if err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, err := json.Marshal(m) // the canonical encoding of a parsed manifest, valid or not
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// pyKeyOriginOutcomes runs pyKeyOriginCheck on manifests.
func pyKeyOriginOutcomes(t *testing.T, py string, manifests [][]byte) []string {
	t.Helper()
	hs := make([]string, len(manifests))
	for i, b := range manifests {
		hs[i] = hex.EncodeToString(b)
	}
	in, err := json.Marshal(hs)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-c", pyKeyOriginCheck)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	var outcomes []string
	if err := json.Unmarshal(out, &outcomes); err != nil || len(outcomes) != len(manifests) {
		t.Fatalf("python printed %q: %v", out, err)
	}
	return outcomes
}
