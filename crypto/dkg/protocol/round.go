package protocol

import (
	"encoding/binary"
	"fmt"
)

// Phase is a part of the ceremony.
type Phase uint8

// The phases, in the order of a ceremony.
const (
	PhaseSieve        Phase = iota + 1 // candidate moduli, trial division, biprimality
	PhaseKeyShare                      // masked product, γ, Feldman re-dealing
	PhaseModulusProof                  // the distributed Πmod prover
	PhaseSelfTest                      // self-test partial decryptions
)

func (p Phase) String() string {
	switch p {
	case PhaseSieve:
		return "sieve"
	case PhaseKeyShare:
		return "key share"
	case PhaseModulusProof:
		return "modulus proof"
	case PhaseSelfTest:
		return "self-test"
	}
	return fmt.Sprintf("phase %d", uint8(p))
}

// Round names one message round: its phase, the batch of candidates (0
// outside the sieve) and the step within them. Every body belongs to one
// round, and a transport delivers it only to a Receive of that round.
type Round struct {
	Phase Phase
	Batch uint32
	Step  uint16
}

// RoundLen is the length of a round's encoding.
const RoundLen = 7

// MarshalBinary is the canonical encoding of r: phase:u8 ‖ batch:u32 ‖
// step:u16, what a transport binds to a body.
func (r Round) MarshalBinary() ([]byte, error) {
	b := []byte{byte(r.Phase)}
	b = binary.BigEndian.AppendUint32(b, r.Batch)
	return binary.BigEndian.AppendUint16(b, r.Step), nil
}

// ParseRound decodes a round encoded by MarshalBinary.
func ParseRound(b []byte) (Round, error) {
	if len(b) != RoundLen {
		return Round{}, fmt.Errorf("protocol: round of %d bytes, want %d", len(b), RoundLen)
	}
	r := Round{Phase: Phase(b[0]), Batch: binary.BigEndian.Uint32(b[1:5]), Step: binary.BigEndian.Uint16(b[5:])}
	if r.Phase < PhaseSieve || r.Phase > PhaseSelfTest {
		return Round{}, fmt.Errorf("protocol: unknown phase %d", b[0])
	}
	return r, nil
}

func (r Round) String() string {
	if r.Phase == PhaseSieve {
		return fmt.Sprintf("%s batch %d step %d", r.Phase, r.Batch, r.Step)
	}
	return fmt.Sprintf("%s step %d", r.Phase, r.Step)
}

// maxReductions is the most degree reductions a sieve product tree needs:
// ⌈log₂ n⌉ − 1 for n ≤ field.MaxParties = 5.
const maxReductions = 2

// Steps of a sieve batch, in the order they run.
const (
	stepSieveDeal  uint16 = iota + 1 // private: shares of a_i, ρ_i, zero, per prime
	stepSieveShape                   // broadcast by trustees 2..n: e_j per prime
	// stepReshare, stepReshare+1: private: sub-shares of the degree
	// reductions (one for 3 trustees, two for 4 or 5).
	stepReshare
)

const (
	stepSieveOpen    = stepReshare + maxReductions + iota // broadcast: shares of y = A + ρ per prime
	stepModulusDeal                                       // private: shares of p_i, q_i, zero, per candidate
	stepModulusOpen                                       // broadcast: shares of N per candidate
	stepBiprimeFirst                                      // broadcast: round-1 G_i per trial-division survivor
	stepBiprimeRest                                       // broadcast: rounds 2..80 per survivor that passed
)

// Steps of the key-share, proof and self-test phases.
const (
	stepKeyDeal    uint16 = iota + 1 // private: shares of m_i, β_i, R_i, zero
	stepGamma                        // broadcast: share of γ
	stepCommitment                   // broadcast: Feldman commitments
	stepSubShare                     // private: f_i(j)
	stepSigma                        // broadcast: σ values
	stepRoots                        // broadcast: x and z values
	stepPartial                      // broadcast: self-test partial decryption
)
