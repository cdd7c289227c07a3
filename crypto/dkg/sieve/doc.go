// Package sieve generates candidate Paillier moduli N = p·q jointly among n
// trustees, none of whom learns p or q: the distributed sieving and modulus
// computation of Boneh and Franklin ("Efficient generation of shared RSA
// keys", J. ACM 2001), on Shamir sharings (Shamir, "How to share a secret",
// 1979) multiplied with the protocol of Ben-Or, Goldwasser and Wigderson
// (1988) in the field P1(n) of package field. The model is semi-honest with
// an honest majority: t = ⌊(n−1)/2⌋ corrupt trustees learn nothing beyond N,
// the statistically masked opening y and the public e_j below.
//
// # One prime
//
// With M' = 16·∏{odd primes ℓ ≤ L} (Params.MaxPrime), trustee i picks
// a_i ∈ Z*_{M'} with a_1 ≡ 3 and a_j ≡ 1 (mod 16) for j > 1. The trustees
// share the a_i, multiply them with BGW (a tree of ⌈log₂ n⌉−1 degree
// reductions; the last product is opened at once under a zero sharing of
// degree 2t) and open y = A + ρ, where A = ∏ a_i and ρ = Σ ρ_i with
// ρ_i ∈ [0, 2^κ·M'^n) hides A. Then b_1 = (y − ρ_1) mod M' and
// b_j = (−ρ_j) mod M' are additive shares of A mod M'. Trustees j > 1
// publish e_j = b_j mod 16 and keep p_j = b_j − e_j + M'·r_j; trustee 1
// keeps p_1 = b_1 + Σ e_j + M'·r_1 + O, with O the smallest multiple of M'
// above 1.5·2^{h−1}, h = bits/2, and r_i ∈ [0, 2^{h−5}/(n·M')). So
// p = Σ p_i lies in [1.5·2^{h−1}, 2^h), p ≡ 3 (mod 16), no odd ℓ ≤ L divides
// p, and p_j ≡ 0 (mod 16) for j > 1.
//
// # The modulus
//
// Each trustee shares its p_i and q_i with degree t and a zero with degree
// 2t; trustee k publishes [p]_k·[q]_k + [0]_k, and N is interpolated from
// those (degree 2t ≤ n−1). With p ≡ q ≡ 3 (mod 16) the additive shares of
// φ(N) are multiples of 4, so the shares of m = φ(N)/4 that the key
// derivation needs are integers (package crypto/dkg/phi).
//
// Each protocol step is a function of one trustee's own state and the
// messages addressed to it (Party, ModulusParty), so a transport can carry
// the messages; Run and Candidates drive n trustees in one process.
// Biprimality and trial division of N are not here: a candidate's primes
// are random numbers free of small factors, not primes.
package sieve
