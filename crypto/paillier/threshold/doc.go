// Package threshold implements K-of-L threshold decryption for fabvote's
// Paillier ciphertexts, so that no single party — not the election authority,
// not one trustee — can decrypt a ballot or the tally. Any K of the L trustees
// together decrypt one ciphertext (in fabvote: only the tally product), and
// every trustee's contribution carries a proof that anyone can check against
// public data on the ledger. It is Shoup's RSA threshold scheme ("Practical
// Threshold Signatures", 2000) as adapted to Paillier by Fouque, Poupard and
// Stern (2000) and Damgård and Jurik (2001, with s = 1), with a trusted dealer.
//
// # Parameters
//
// The dealer picks safe primes p = 2p'+1 and q = 2q'+1 of equal length
// (1024 bits each for N = pq of 2048 bits), m = p'q', and
//
//   - d with d ≡ 0 (mod m) and d ≡ 1 (mod N),
//   - a random polynomial f of degree K-1 over Z_{Nm} with f(0) = d,
//   - the shares s_i = f(i) mod Nm for i = 1..L,
//   - Δ = L!,
//   - V, a random square in Z*_{N²} that generates the group Q of squares
//     (cyclic of order Nm; the dealer checks V^{Nm/ℓ} ≠ 1 for ℓ ∈ {p, q, p', q'}),
//   - the verification keys V_i = V^{Δ s_i} mod N².
//
// Plaintexts live in Z_N and are encrypted as usual with g = N+1:
// c = (1+N)^M r^N mod N², under PublicParams.PublicKey.
//
// # Decryption
//
// Trustee i publishes c_i = c^{2Δ s_i} mod N² and a proof that
// log_{c⁴}(c_i²) = log_V(V_i): it picks r uniformly below 2^{|N²|+|Δ|+512},
// sets a = (c⁴)^r, b = V^r, e = SHA-256(DomainTag ‖ |N| ‖ N ‖ i ‖ V ‖ V_i ‖
// c ‖ c_i ‖ a ‖ b) (fixed-width fields, see challenge in partial.go) and
// z = r + e·Δ·s_i over the integers. The verifier recomputes
// a = (c⁴)^z (c_i²)^{-e} and b = V^z V_i^{-e} and the hash, after checking
// that c, c_i ∈ Z*_{N²}, e < 2^256 and z < 2^{|N²|+|Δ|+513}. Squaring moves
// everything into Q, whose order Nm has no prime factor below 2^1000, so a
// challenge difference is invertible modulo the group order and the proof
// is sound; the nonce is 2^256 times longer than e·Δ·s_i, so z is within
// statistical distance 2^-256 of uniform and hides s_i.
//
// Given K verified partials from a set S of trustees, anyone computes
// μ_i = Δ·∏_{j∈S∖{i}} j/(j−i) (an integer, because Δ = L!),
// c' = ∏ c_i^{2μ_i} = c^{4Δ² d} = 1 + 4Δ²M·N (mod N²), and
// M = L(c')·(4Δ²)⁻¹ mod N with L(x) = (x−1)/N. Combine verifies every partial
// first and names the trustee of the first bad one; it needs K valid,
// distinct partials.
//
// # Security assumptions
//
//   - Decisional composite residuosity (Paillier's assumption) for N, and
//     that factoring N is hard, with p, q random 1024-bit safe primes.
//   - A trusted dealer: Deal sees the factorisation and d. It keeps nothing
//     (it wipes what it can; Go's garbage collector may keep copies it cannot
//     reach), and must run on a machine the trustees trust, ideally offline,
//     that hands each share to its trustee only. There is no distributed key
//     generation here.
//   - Fewer than K trustees are corrupt (static corruption). K colluding
//     trustees can decrypt any ballot, not just the tally, so an honest
//     trustee partially decrypts only the tally ciphertext it has recomputed
//     from the ledger itself: KeyShare.DecryptTally, the only exported use
//     of a share's secret on a ciphertext, takes only a SealedTally, and
//     only the Sealer makes one. (KeyShare.DecryptSelfTest takes none: it
//     decrypts a hash-derived test ciphertext of the key ceremony.) ClaimSealer hands a process's one Sealer to its first
//     caller; in fabvote that is internal/trustee, when it is initialised,
//     and it seals only the product of the ledger's verified ballots once
//     every org's peer shows the voting window closed (its tests check
//     that no other package of fabvote claims the Sealer). This binds
//     fabvote's own code: a program written against this library can claim
//     the Sealer itself, or work on a share's bytes, and decrypt anything
//     with K shares, which is why shares are kept apart. PublicParams are
//     read-only after construction and safe for concurrent use.
//   - The Fiat–Shamir transform with SHA-256 as a random oracle; the hash binds
//     the whole statement (N, V, i, V_i, c, c_i), not just the commitments,
//     so proofs cannot be moved to another key, trustee or ciphertext.
//   - V generates Q (the dealer checks it) and the V_i were computed honestly:
//     the verifier cannot check either without the factors; it checks only
//     that they lie in Z*_{N²}.
//   - Timing: math/big exponentiation is not constant time. A trustee must
//     compute its partial decryption where an adversary cannot time it
//     closely (not on a shared host); verification handles public data only.
//   - Robustness: K honest trustees always succeed; a wrong partial is
//     detected and attributed, never silently combined.
//
// # What is stored where
//
// A KeyShare — index, K, L, N and s_i — has a canonical encoding
// (MarshalBinary / ParseKeyShare). fabvote never writes it in the clear:
// `election create` seals each share to its own trustee's age key
// (internal/sharebox). For other uses, internal/keyfile keeps a share in a
// file of mode 0600 (written atomically; reading refuses a file that others
// can access). Wipe overwrites a share's secret. KeyShare's String,
// GoString and Format never show s_i. KeyShare.Check verifies a loaded share
// against the public parameters.
//
// The ledger holds the PublicParams in the election manifest: N, K, L, V and
// V_1..V_L — no p, q, m, d or share (a test inspects the encoding). At
// N = 2048 bits they take 11 + 256 + (L+1)·512 bytes. With the result, the
// ledger holds the K PartialDecryptions of the tally ciphertext (index, c_i,
// e, z; 1128 bytes each for L = 3), from which anyone re-runs Combine and
// gets the tally. All three have canonical, length-checked binary encodings
// (encoding.go) whose decoders name the bad field; they are fuzzed.
//
// # Integer shares (version 2)
//
// A key generated without a dealer leaves each trustee an integer share
// s_i of a polynomial over the integers, longer than N² because nobody knows
// φ(N) to reduce it. Such parameters carry ShareBits, the bound
// 0 ≤ s_i < 2^ShareBits (|N²| ≤ ShareBits ≤ 2·|N²|); with it the proof's
// nonce is drawn below 2^{ShareBits+|Δ|+512} so that it still hides Δ·s_i,
// the response bound grows to match, the challenge hashes DomainTagV2 and
// ShareBits, and the three encodings carry version 2 (encoding.go).
// Combine is unchanged: it needs only Σ μ_j s_j = Δ·d with d ≡ 1 (mod N)
// and 4d ≡ 0 (mod λ(N)). NewKeyShare makes such a share; Deal makes
// version 1 keys only. Version 1 and version 2 proofs never verify under
// each other's parameters (TestVersionsDoNotCrossVerify). A ceremony checks
// its key end to end before use: every trustee decrypts SelfTestCiphertext,
// a hash of the ceremony and the public parameters, with DecryptSelfTest,
// and any K of the partials must give its plaintext.
//
// # Safe primes
//
// GenerateSafePrime sieves the progression q' ≡ 5 (mod 6) with the odd primes
// below 2^15 for both q' and 2q'+1, then runs base-2 Fermat tests on q' and p,
// ProbablyPrime(20) on q', and proves p prime with Pocklington's criterion.
// Deal generates p and q in parallel. Tests use fixed primes from
// testdata/safe_primes.json (regenerate: go test -run TestGenerateVectors
// -update) through DealFromPrimes.
//
// # github.com/didiercrunch/paillier
//
// The product does not depend on github.com/didiercrunch/paillier; only the
// cross-check tests import it. Its threshold scheme is the same mathematics,
// and the tests show that its encryption, partial decryptions, combination
// and proofs agree with ours on our key and that a key dealt by its generator
// works with our code. We do not build on it because:
//
//   - its proof nonce r is drawn below N², shorter than e·Δ·s_i, so each
//     published proof reveals about the top 256 bits of Δ·s_i
//     (TestCrossCheckProofHidesShare demonstrates it);
//   - its Fiat–Shamir hash has no domain tag and leaves N, V, V_i and the
//     trustee index out of the hash;
//   - its verifier does not check that c_i is in Z*_{N²} or that the index is
//     in range, and panics on such input (nil dereference, index out of
//     range) instead of returning an error;
//   - CombinePartialDecryptionsZKP drops invalid partials without saying whose,
//     and CombinePartialDecryptions combines unverified ones;
//   - the version in go.mod is an untagged 2018 commit; its encodings are
//     JSON/BSON without canonical form or length checks; its key generator
//     searches safe primes with 4 goroutines and a hard-coded 120 s timeout.
package threshold
