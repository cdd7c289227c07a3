// Package protocol runs one trustee's side of the dealer-free key
// ceremony as rounds of messages over a Transport: Run composes the
// per-trustee steps of crypto/dkg/sieve, crypto/dkg/biprime,
// crypto/dkg/modulus, crypto/dkg/keyshare, crypto/dkg/wellformed and
// crypto/dkg/keygen, each of which takes only the trustee's own state and
// the messages addressed to it. The model is semi-honest with an honest
// majority, as in those packages: no seeds are committed and no rejected
// candidate is audited.
//
// # Rounds
//
// A Round is {Phase, Batch, Step}, encoded canonically in RoundLen bytes
// (Round.MarshalBinary), so a body of one round is never read as another's.
// The sieve works in batches of Config.Batch candidate pairs: every round
// of a batch carries the messages of all its candidates in one body.
// Steps of batch b (phase sieve):
//
//  1. private: shares of a_i, ρ_i and a zero, for the 2·Batch primes;
//  2. broadcast by trustees 2..n: e_j of every prime (trustee 1 reads them);
//  3. (and 4 for 4 or 5 trustees) private: sub-shares of the degree
//     reductions of the sieve's products;
//  5. broadcast: the shares of y = A + ρ of every prime, after which each
//     trustee lifts its p_i and q_i;
//  6. private: shares of p_i, q_i and a zero, per candidate;
//  7. broadcast: the shares of N, per candidate; every trustee opens every
//     N and trial-divides it (crypto/dkg/biprime.TrialDivide);
//  8. broadcast: round 1 of the biprimality test, per survivor (skipped
//     when none survives);
//  9. broadcast: rounds 2..80, one list per survivor that passed round 1
//     (skipped when none passed).
//
// The accepted candidate of lowest index in the first batch that has one
// is the modulus: every trustee decides on the same public values, so
// all agree. Every other candidate is dropped, its shares wiped (best
// effort: math/big may leave copies).
// Then: key share (1 private deal, 2 broadcast share of γ, 3 broadcast
// Feldman commitments, 4 private sub-share), modulus proof (1 broadcast σ
// values, 2 broadcast x and z values), self-test (1 broadcast partial
// decryption). Each trustee assembles keygen.Public from the broadcast
// values, identical on every trustee, and checks it with
// keygen.Public.Verify before returning its share.
//
// # Bodies
//
// Every body is a kind tag and lists of signed integers, in one canonical
// encoding:
//
//	kind:u8 ‖ lists:u16 ‖ per list: count:u32 ‖ count × integer
//	integer = sign:u8 (0 non-negative, 1 negative) ‖ len:u16 ‖ magnitude
//
// the magnitude big-endian and minimal (zero is len 0, sign 0). The decoder
// refuses anything else (a leading zero byte, a negative zero, trailing
// bytes, more than 4,096 lists, 65,536 integers, 2,048 bytes per integer
// or 16 MiB per body) and checks every count against the bytes left before
// it allocates; the round then requires its kind and counts. A body never
// names its sender: the transport does.
//
// # Transport
//
// Transport is what a network carries for one trustee; its doc comment is
// the exact contract. Memory is an in-process implementation for tests and
// measurements. A Receive that ends (context deadline, transport failure)
// makes Run return an error naming the round and the trustees that were
// silent; every other error names its round too.
package protocol
