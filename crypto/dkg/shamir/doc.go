// Package shamir is Shamir secret sharing over a prime field (Shamir, "How
// to share a secret", 1979) with the multiplication of Ben-Or, Goldwasser
// and Wigderson ("Completeness theorems for non-cryptographic fault-tolerant
// distributed computation", 1988), as used by fabvote's dealer-free Paillier
// key generation after Boneh and Franklin ("Efficient generation of shared
// RSA keys", J. ACM 2001).
//
// Trustee k of n holds the value at the point k of a random polynomial of
// degree t whose constant term is the secret; any t+1 shares determine it,
// t shares reveal nothing. With 2t < n, the trustees multiply two shared
// values without opening them (BGW):
//
//  1. each trustee k multiplies its two shares (MulShares): h_k lies on a
//     polynomial of degree 2t with the product as constant term;
//  2. each trustee deals its h_k again with degree t (Deal) and sends the
//     sub-share for point j to trustee j;
//  3. each trustee j combines what it received (Recombine):
//     Σ_k λ_k·sub_{k→j}, with λ_k the Lagrange coefficients at 0, is its
//     share of the product on a fresh polynomial of degree t.
//
// A product that is opened right away needs no reduction: the trustees add
// a random sharing of 0 of degree 2t (Zero) to their h_k, so the opened
// polynomial is uniform apart from its constant term, and Reconstruct it
// with degree 2t.
//
// Each function takes only what one trustee holds or receives, so a
// transport can carry the shares between them. The package trusts its
// callers to be honest (semi-honest model): Consistent detects shares that
// do not lie on one polynomial when more than degree+1 are at hand, but
// nothing names who sent a bad one.
package shamir
