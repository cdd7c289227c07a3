// Package biprime holds the public tests that a jointly generated Paillier
// modulus N = pq must pass before the trustees keep it, while nobody knows p,
// q or φ(N): trial division of N, and the biprimality test of Boneh and
// Franklin ("Efficient generation of shared RSA keys", J. ACM 2001).
//
// Each trustee i holds additive integer shares p_i, q_i of p and q, shaped by
// the sieve so that p ≡ q ≡ 3 (mod 16) and every share of
// m = φ(N)/4 = (p−1)(q−1)/4 is an integer (crypto/dkg/phi). For a round of the
// test, every trustee derives the same public base g with Jacobi symbol
// (g/N) = +1 (Base), publishes G_i = g^{m_i} mod N (PartyValue), and anyone
// accepts the round iff ∏ G_i ≡ ±1 (mod N) (Accept).
//
// Soundness: if N = pq with p ≡ q ≡ 3 (mod 4) distinct primes, every round
// passes (g^m = (g/p) = (g/q) = ±1 for (g/N) = +1). Boneh and Franklin show
// that otherwise, unless N = p^a·q^b with a > 1, at least half of the bases
// with Jacobi symbol +1 fail; the bases are derived by hashing, so nobody
// picks them, and a composite survives Rounds rounds with probability at most
// 2^-Rounds. The excluded case p^a·q^b is refused by the square-freeness part
// of the proof of crypto/dkg/wellformed (z^N ≡ y has no solution when
// gcd(N, φ(N)) ≠ 1). A prime N is not refused here (Z*_N is cyclic, so the
// test is vacuous for it); the sieve's shaping p ≡ q ≡ 3 (mod 16) rules out
// the split N·1, and crypto/dkg/wellformed refuses prime moduli.
package biprime
