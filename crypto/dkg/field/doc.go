// Package field is the prime-field arithmetic of fabvote's dealer-free
// Paillier key generation: F_P on math/big, and the fixed primes P1(n) and
// P2(bits) that the trustees' secret sharings live in.
//
// The key generation follows Boneh and Franklin ("Efficient generation of
// shared RSA keys", J. ACM 2001): the trustees hold Shamir shares (Shamir,
// "How to share a secret", 1979) of their candidate primes in a prime field
// and multiply them with the protocol of Ben-Or, Goldwasser and Wigderson
// ("Completeness theorems for non-cryptographic fault-tolerant distributed
// computation", 1988). Every value that is multiplied or opened must stay
// below the field's prime, so that field arithmetic equals integer
// arithmetic; the primes are sized for that.
//
// # The fixed primes
//
// Nobody chooses a field prime: each is the smallest prime above
// 2^b + H, where H is SHA-256 of the domain tag "fabvote/dkg/field/v1", a
// zero byte, the prime's name ("P1" or "P2"), a zero byte and its parameter
// as a big-endian uint16, read as a 256-bit integer. b is the bit length of
// the prime's lower bound, so P > 2^b > bound:
//
//   - P1(n), for the sieve and the modulus N with n trustees:
//     bound max(2^{κ+1}·n·M'^n, n²·2^{MaxModulusBits+2}), κ = Kappa and M' the
//     sieve modulus 16·∏{odd primes ≤ MaxSievePrime}. The opened masked sieve
//     product y = A + ρ is below 2^{κ+1}·n·M'^n and N below 2^{MaxModulusBits}.
//   - P2(bits), for the product of the shared φ(N)/4 with a mask when N has
//     the given number of bits: bound 2^{2·bits+2κ+64}, above
//     γ = m·β + N·R < 2^{2·bits+2κ+2·log₂n+2} for n ≤ MaxParties.
//
// A BGW field has no trapdoor, so the rule only has to be reproducible:
// anyone re-derives the same primes.
package field
