// Package modulus generates the joint Paillier modulus of a dealer-free key:
// n trustees repeat, until one candidate is accepted,
//
//  1. a candidate N = p·q from the distributed sieve (crypto/dkg/sieve),
//     each trustee keeping its additive shares p_i, q_i;
//  2. public trial division of N (crypto/dkg/biprime.TrialDivide); a
//     candidate with a prime factor below 2^20 is dropped;
//  3. the biprimality test of Boneh and Franklin (crypto/dkg/biprime): one
//     round first, since a composite N almost always fails it; for a
//     candidate that passes, the other biprime.Rounds−1 rounds in one message
//     round. A candidate that passes every round is accepted.
//
// Each trustee's side is a Trustee: its functions take only its own state
// and the messages addressed to it (Values, broadcast by every trustee), so
// a transport can carry the messages. A trustee computes the bases itself,
// checks every round from the values it receives and, on a rejection,
// wipes its shares of the dropped candidate. Public steps (the sieve's
// openings, trial division) are functions anyone can run; in a ceremony
// every trustee runs them on the public values.
//
// Generate drives n trustees in one process: it takes each candidate from
// sieve.Run, hands every Trustee only its own shares, and counts the work
// (Stats), which Stats.Summary prints next to the expected numbers
// (Params.Expect) for a ceremony report.
//
// The model is semi-honest: every trustee follows the protocol. The
// trustees commit to no seeds, and nobody audits a dropped candidate, so a
// trustee that lies about its values can fail a good modulus or pass a bad
// one unnoticed here; the well-formedness proof of crypto/dkg/wellformed
// still refuses a bad one.
package modulus
