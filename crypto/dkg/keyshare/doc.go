// Package keyshare turns the trustees' additive integer shares m_i of
// m = φ(N)/4, as the distributed sieve (crypto/dkg/sieve) leaves them, into
// a threshold Paillier key of crypto/paillier/threshold (integer shares,
// version 2) with no dealer, plus each trustee's exponent shares for the
// Πmod proof of crypto/dkg/wellformed. The model is semi-honest with an
// honest majority, as in the sieve.
//
// # One masked product
//
// Trustee i draws β_i ∈ [0, 2^κ·N) and R_i ∈ [0, 2^{|N|+2κ+2⌈log₂n⌉}),
// R_i ≡ 0 (mod 4) (κ = field.Kappa), and Shamir-shares m_i, β_i, R_i with
// degree t = ⌊(n−1)/2⌋ over P2(|N|) of package field. Each trustee
// publishes its share of [m]·[β] + N·[R] plus a zero of degree 2t, and
// γ = m·β + N·R is interpolated (the BGW product of Ben-Or, Goldwasser
// and Wigderson opened at once, without degree reduction). N·R hides x = m·β
// statistically; γ coprime to N is required (a common factor would factor
// N). Public: ζ = (Δ·γ)⁻¹ mod N and a, b with a·γ + b·N = 1, Δ = n!.
//
// Since x = γ − N·R over the integers, each trustee derives locally:
//
//   - D_i, its share of D = Δ·ζ·x: D_1 = Δζ(γ − N·R_1), D_j = −Δζ·N·R_j.
//     D ≡ 1 (mod N) and D ≡ 0 (mod Δ·m), the decryption secret of the
//     threshold scheme with the extra factor Δ that integer sharing needs.
//   - E'_i, its share of E' = a·R + b + j·m, j = (1 − b) mod 4, an inverse
//     of N mod φ(N) (Catalano, Gennaro and Halevi: the same opened value
//     inverts N mod the shared m): E'_1 = a·R_1 + b + j·m_1,
//     E'_j = a·R_j + j·m_j.
//   - u_i, its share of u = (3m+1)/4 ≡ 4⁻¹ (mod m)
//     (wellformed.FourthRootShare).
//
// # Integer re-dealing for threshold K
//
// Trustee i deals f_i(X) = D_i + Σ_{l=1}^{K−1} a_{i,l}·X^l over the
// integers with a_{i,1} ∈ [A_0, A_0 + A), a_{i,l} ∈ [0, A) for l ≥ 2,
// A_0 = n·2^{|D|max} and A = 2^{|D|max+κ+|Δ|}, where |D|max bounds every
// honest |D_i|. For K ≥ 2 every f_i(j) is positive, and any K−1 of them
// are statistically independent of D_i because Δ divides D_i (for K = 1,
// f_i = D_i: every trustee holds D, as a threshold of one means). Trustee j's
// share is s_j = Σ_i f_i(j); Σ_{j∈S} μ_j·s_j = Δ·D for any K-set S, so the
// threshold scheme's Combine works unchanged. ShareBits is a bound on
// every honest s_j computed from |N|, n, K, Δ and κ alone (NewParams
// refuses sizes where it falls outside |N²|..2·|N²|).
//
// Each dealer broadcasts Feldman commitments C_{i,l} = V^{Δ·a_{i,l}} mod N²
// (C_{i,0} = V^{Δ·D_i}) with V = x² mod N², x the first unit of a hash
// stream over the ceremony, N, n, K and γ (DeriveV: nobody chooses it).
// Trustee j checks V^{Δ·f_i(j)} = ∏_l C_{i,l}^{j^l} and names a dealer whose
// sub-share fails (DealerError). Anyone computes the verification keys
// V_j = ∏_i ∏_l C_{i,l}^{j^l} = V^{Δ·s_j}.
//
// # Self-test
//
// threshold.SelfTestCiphertext derives a test ciphertext from the ceremony
// and the key's public parameters, and each trustee decrypts it with
// KeyShare.DecryptSelfTest; CheckSelfTest requires that every K-subset of
// the trustees' partial decryptions of it combines to its plaintext, which
// checks D ≡ 1 (mod N) and 4·D ≡ 0 (mod λ(N)) end to end.
//
// Each round is a method of Party taking only the trustee's own state and
// the messages addressed to it: NewParty (field shares), Open (its share
// of γ), OpenGamma (public), Deal (commitments and sub-shares), Receive
// (its threshold.KeyShare) and Exponents (its wellformed.Share). Run drives
// n trustees in one process.
package keyshare
