// Package wellformed proves and verifies, publicly, that a Paillier modulus
// N generated jointly by the trustees is well formed: N = pq with p, q
// distinct primes ≡ 3 (mod 4) and gcd(N, φ(N)) = 1. The proof is Πmod, the
// Paillier–Blum modulus proof of Canetti, Gennaro, Goldfeder, Makriyannis
// and Peled ("UC non-interactive, proactive, threshold ECDSA with
// identifiable aborts", 2020), made non-interactive with hash-derived
// challenges, with Challenges = 80 challenges. It complements the
// Boneh–Franklin biprimality test of crypto/dkg/biprime (J. ACM 2001), whose
// bound leaves out moduli p^a·q^b with a > 1: those have no N-th roots, so
// Πmod refuses them.
//
// Statement and challenges (all derived, nobody chooses them):
//
//   - w is the first element with Jacobi symbol (w/N) = −1 of the hash
//     stream of zn (crypto/internal/zn) over
//     (Tag, ceremony, N, "w");
//   - y_k (k = 1..80) is the first element of Z*_N of the stream over
//     (Tag, ceremony, N, w, u32be(k)); N is written as its minimal bytes, w
//     with the width of N.
//
// For each k the proof gives bits a_k, b_k and x_k, z_k ∈ Z*_N with
// x_k^4 ≡ (−1)^{a_k}·w^{b_k}·y_k and z_k^N ≡ y_k (mod N). A 4th root of
// ±w^b·y for every challenge exists only when N is a product of Blum primes
// (with at most two distinct ones), an N-th root of every y only when
// gcd(N, φ(N)) = 1 (square-free); a false statement fails each challenge
// with probability at least 1/2, so all 80 with at most 2^-80. Verify also
// checks that N is odd, not prime and has no prime factor below 2^20.
//
// The trustees produce the proof without anyone knowing p, q or φ(N), from
// additive integer shares (Statement.Sigmas, Statement.Signs,
// Statement.Roots, Statement.Assemble): trustee i holds m_i (Σ m_i =
// m = φ(N)/4), u_i (Σ u_i ≡ 4^{-1} mod m) and E_i (Σ E_i ≡ N^{-1} mod φ(N)),
// and publishes only powers of public elements: σ_{k,i} = ŷ_k^{m_i} with
// ŷ_k = w^{b_k}·y_k, which multiply to ±1 and give a_k; then
// x_{k,i} = y'_k^{u_i} with y'_k = (−1)^{a_k}·ŷ_k, and z_{k,i} = y_k^{E_i},
// whose products are x_k and z_k. Prove is the same computation for one
// holder of p and q.
package wellformed
