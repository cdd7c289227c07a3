// Package keygen is the dealer-free key ceremony's result and the steps
// that follow an accepted modulus: from the trustees' additive shares of
// p and q (crypto/dkg/sieve, crypto/dkg/biprime) to a version-2 threshold
// Paillier key (crypto/dkg/keyshare), the proof that N is a Paillier–Blum
// modulus (crypto/dkg/wellformed, Canetti, Gennaro, Goldfeder,
// Makriyannis and Peled 2020), and the self-test decryption
// (threshold.SelfTestCiphertext).
//
// Public is what a ceremony publishes and what everyone checks before the
// key is used: Verify is the one check of a distributed key, shared by
// every verifier in Go. FinishInProcess runs the steps for n trustees in
// one process, for tests and measurements; a real ceremony runs each
// trustee's part in its own process.
package keygen
