// Package paillier implements the Paillier cryptosystem with generator g = N+1,
// as used by fabvote for encrypted ballots: ballots are multiplied together on the
// ledger (homomorphic addition of votes) and only the final product is decrypted.
//
// The package exists on its own so that the ballot contract, the CLI and the
// threshold-decryption package share one audited implementation of key
// handling, encryption, CRT decryption, canonical encodings and the tally product.
//
// Encryption of m with nonce r ∈ Z*_N is c = (1+N)^m · r^N mod N², computed as
// (1 + m·N) · r^N mod N² because (1+N)^m ≡ 1 + m·N (mod N²).
//
// Every value that crosses a trust boundary (ciphertexts, public and private
// keys) has one canonical fixed-length encoding; decoders reject any other
// byte string and any value outside its group.
package paillier
