// Package zkp holds the zero-knowledge proofs of fabvote ballots: the
// 1-out-of-p validity proof (that a Paillier ciphertext encrypts one of the
// candidate encodings M^0 … M^(p-1)), its fast and batch verification, and
// the single-key decryption proof. It is separate from package paillier
// because the chaincode needs the verifier, the CLI the prover, and the
// soundness argument below belongs next to the code that relies on it.
//
// # The proof
//
// For a ballot c = (1+N)^m · r^N mod N² and each candidate k let
// u_k = c·(1+N)^(-M^k) = c·(1 - M^k·N) mod N². The ballot is valid iff some
// u_k is an N-th residue. The prover runs, for every k, the sigma protocol
// for N-th residuosity (a_k = ω^N, z_k = ω·r^(e_k)), simulating the p-1 false
// branches and composing them in the Cramer–Damgård–Schoenmakers way: the
// challenges e_k ∈ [0, 2^t) must sum to e (mod 2^t), where Fiat–Shamir gives
//
//	e = SHA-256("fabvote/zkp/validity/v2", t, manifest digest, election id, N,
//	            p, M^0 … M^(p-1), pseudonym, SHA-256(voter key), c,
//	            a_0 … a_(p-1)) truncated to t bits,
//
// every field length-prefixed, c and a_k in their fixed-length encodings.
// Binding the voter key and the pseudonym stops a copied ballot from being
// replayed under another voter; binding the manifest digest (which covers
// the election id, the channel, N, the candidates and every other manifest
// field) stops reuse in any other election, even one with the same id and key.
//
// # Proving in two phases
//
// Every exponentiation by N of the proof is independent of c and of which
// branch is real: ω^N for the real branch and z_k^N for a simulated one.
// PrecomputeValidity draws ω and, for every branch k, e_k and z_k, and
// computes ω^N and every z_k^N; Finish, given c, its nonce r and the real
// index j, computes each simulated a_k = z_k^N · u_k^(-e_k) (an exponent of
// t bits), the challenge, e_j and z_j = ω·r^(e_j) mod N, and discards e_j and
// z_j as drawn. The proof is the same function of the randomness used as a
// one-go proof, so it is distributed the same. A precomputation serves one
// proof (ErrPrecomputationUsed): two proofs with the same simulated (e_k,
// z_k) would show which branch is real. PrecomputeValidityFor is for a
// prover that knows the real branch: it draws nothing for it, and Finish
// refuses another. ProveValidity is both phases, and draws nothing for the
// real branch: e_k and z_k of each simulated branch in
// order of k, then ω, the stream the known-answer vectors fix.
//
// # What the verifier checks
//
//  1. exactly p branches; c and every a_k in Z*_{N²} (0 < x < N², gcd(x, N) = 1);
//     every z_k in Z*_N with z_k < N/2; every e_k in [0, 2^t);
//  2. Σ e_k ≡ e (mod 2^t);
//  3. for every k, w_k² = 1, where w_k = z_k^N · a_k^(-1) · u_k^(-e_k) mod N²,
//     that is (z_k^N)² ≡ (a_k · u_k^(e_k))² (mod N²).
//
// Check 3 is the textbook equation z_k^N ≡ a_k·u_k^(e_k) squared. Squaring is
// what makes the fast verifiers below agree exactly with the one-by-one
// verifier (VerifyValidityNaive), and costs two multiplications. Since N is
// odd, (N-z)^N ≡ -z^N (mod N²), so z_k and N-z_k would both pass check 3;
// check 1 accepts only the representative below N/2, so a third party cannot
// alter a proof. The prover canonicalises z_k in every branch after computing
// a_k, so z_k^N = ±a_k·u_k^(e_k) with a sign that is a fair coin in every
// branch and reveals nothing about the vote (tested).
//
// # Structure of Z*_{N²}
//
// The argument assumes N = p·q with |p| = |q| (so both primes exceed 2^(|N|/2 - 1)),
// which paillier.GenerateKey and the threshold dealer guarantee; whoever
// makes the key (the election authority or the dealer) is trusted to make
// it that way.
//
// Let G = Z*_{N²}, of order φ(N²) = N·φ(N) = p·q·(p-1)·(q-1). Keys have
// gcd(N, φ(N)) = 1 (package paillier checks it), so
//
//	G ≅ C_N × R,   C_N = ⟨1+N⟩ of order N,   R = {x^N} ≅ Z*_N of order φ(N).
//
// Every x ∈ G is uniquely (1+N)^μ(x) · s^N; μ: G → Z_N is a homomorphism whose
// kernel is R (μ needs the factorisation; it appears only in this argument).
// The statement "c encrypts M^k" is exactly μ(u_k) = 0. Every element of G
// whose order is not divisible by p or q lies in R; in particular all
// elements of small order do. C_N has no element of order below min(p, q).
//
// # Soundness of the proof (random-oracle model)
//
// If w_k² = 1 then w_k has order dividing 2, so w_k ∈ R and μ(w_k) = 0. As
// μ(z_k^N) = N·μ(z_k) = 0, check 3 implies
//
//	δ_k := μ(a_k) + e_k·μ(u_k) ≡ 0 (mod N).                          (*)
//
// Suppose c encrypts none of the messages, so μ(u_k) ≠ 0 for every k. Then
// for fixed (c, a_k) at most one e_k ∈ [0, 2^t) satisfies (*): two solutions
// give (e_k - e'_k)·μ(u_k) ≡ 0 (mod N) with 0 < |e_k - e'_k| < 2^t, so p or q
// divides e_k - e'_k, impossible because 2^t < min(p, q) (|p| = |q| = |N|/2 and
// Context.Check requires t + λ + 2 < |N|/2). So the good challenges are fixed
// by the hash input, and they sum to the hash output with probability 2^-t per
// random-oracle query: a prover making q_H queries succeeds with probability
// at most q_H·2^-t. Only the C_N component (μ) matters for the statement:
// whatever a cheater does in the R component (for example multiplying by -1,
// or by an element of small order) cannot make an invalid vote count.
//
// # Fast verification with random weights
//
// VerifyValidity draws, after it has the proof, independent uniform weights
// ρ_k ∈ [0, 2^λ), λ = RhoBits = 64, from crypto/rand, and checks the single
// equation ∏_k w_k^(2ρ_k) = 1, computed as
//
//	((∏ z_k^ρ_k mod N)^N)² ≡ (∏ a_k^ρ_k · c^(Σ e_k ρ_k) · (1 - N·Σ M^k e_k ρ_k))²  (mod N²)
//
// using (x mod N)^N ≡ x^N (mod N²) and (1+N)^y ≡ 1 + yN (mod N²). That is ONE
// exponentiation by N plus multi-exponentiations (package crypto/paillier/arith,
// shared squarings) with 64-bit exponents and one with a (t+λ+2)-bit exponent.
// VerifyBatch does the same over all (ballot, branch) pairs of the ballots
// that share N: still one exponentiation by N per batch.
//
// Soundness of the statement (unconditional). Apply μ to the accepted
// equation: 2·Σ ρ_k·δ_k ≡ 0 (mod N), and 2 is invertible mod N. If some
// δ_j ≢ 0, fix all other weights; two values ρ_j ≠ ρ'_j satisfying it would
// give (ρ_j - ρ'_j)·δ_j ≡ 0 (mod N) with 0 < |ρ_j - ρ'_j| < 2^λ < min(p, q),
// impossible as above. So at most one of the 2^λ values of ρ_j passes:
//
//	Pr[accept | some δ_k ≢ 0] ≤ 2^-λ,
//
// and overall a cheating prover gets an invalid ballot accepted with
// probability at most q_H·2^-t + 2^-λ per submission (the weights are drawn
// fresh by each verifier after the ballot is fixed, so 2^-λ cannot be ground
// offline). A batch that fails is bisected (below), so an invalid ballot in
// a batch of n meets up to ⌈log2 n⌉+1 combined checks, each with fresh
// weights, and by the union bound gets through with probability at most
// (⌈log2 n⌉+1)·2^-λ (below 2^-60 for n = 256), still per submission.
// Small-order elements do not weaken this bound because they all lie in R,
// which μ kills, and C_N (the only component the statement is about) has no
// element of order below min(p, q).
//
// Agreement with the one-by-one verifier. The weighted check accepts every
// proof with all w_k² = 1. Conversely, if some v_j = w_j² ≠ 1 has order d,
// the weighted check passes with probability at most ⌈2^λ/d⌉/2^λ ≤ 1/d + 2^-λ.
// Here small-order elements do matter: d can be any divisor of
// |G²| = N·φ(N)/4, and the bound is 1/q_min + 2^-λ where q_min is the smallest
// prime factor of (p-1)(q-1)/4 (or of p'q' for safe primes p = 2p'+1,
// q = 2q'+1, where it is ≥ 2^1000 and the bound is 2^-λ unconditionally).
// For general primes q_min is often 2 or 3, but to use this a prover needs an
// element of small order other than ±1 in Z*_N, and finding one is believed
// as hard as factoring N (the low-order assumption for RSA groups); -1, the
// one small-order element everybody knows, is exactly what squaring removes.
// So, short of factoring N, the randomised verifiers (VerifyValidity,
// VerifyBatch) and the deterministic VerifyValidityNaive accept the same
// proofs except with probability 2^-λ, and peers verifying with their own
// randomness agree. (The only party able to break agreement is one holding
// the factorisation, and even it cannot get an invalid vote counted: the
// statement bound above is unconditional.)
//
// When a batch fails, VerifyBatch splits it in halves and re-checks each
// half with fresh weights, down to single ballots, so exactly the invalid
// ballots get an error, each naming its index (a valid ballot passes every
// check it is in; an invalid one slips through only with the union bound
// above).
//
// # Decryption proof (single key)
//
// With the whole key the tally C is opened by publishing T and R ∈ Z*_N with
// C = (1+N)^T · R^N mod N² (ProveDecryption); VerifyDecryption checks the ranges
// and re-encrypts: one exponentiation by N. R reveals nothing beyond T: it is
// the product of the ballots' nonces, and T is published anyway.
//
// # Review (2026-11-22)
//
// A second reading of the argument above, line by line, found it sound;
// what it found worth recording:
//
//   - Extraction with the squared relation. Two accepting transcripts
//     (a, e, z), (a, e', z') give (z/z')^(2N) = u^(2(e-e')); as N is odd and
//     0 < |e-e'| < 2^t < min(p, q), gcd(2(e-e'), N) = 1, so with
//     α·2(e-e') + β·N = 1 the witness is u = ((z/z')^(2α)·u^β)^N: squaring
//     costs nothing in special soundness.
//   - Malleability. Besides z ↦ N-z (closed by z < N/2), z_k ↦ z_k·x for a
//     square root x ≠ ±1 of 1 mod N keeps every equation true. Computing such
//     an x factors N, so only the key holder can do it, and a ballot's
//     proof is covered by the voter's signature anyway.
//   - Agreement is conditional. Whoever knows the factors can build x of
//     small odd order d in Z*_N (d | (p-1)(q-1)) and multiply one z_k by it: the
//     statement stays true, the naive verifier rejects, and a weighted check
//     accepts with probability 1/d. TestLowOrderGapNeedsFactorisation shows
//     it with the test key (d = 11). With a single key that party is the
//     election authority, which can already mint tokens; threshold keys use
//     safe primes and have no such d. Generating single keys from safe
//     primes too would make agreement unconditional.
//   - The three verifiers are run on the same honest, mauled and random
//     proofs (alone and inside batches of honest ballots) by
//     TestVerifiersAgree and FuzzVerifiersAgree.
package zkp
