// Package election holds the fabvote protocol objects that the ballot
// chaincode, the CLI, the booth and the auditor must agree on byte for byte: the election
// manifest, the authority's eligibility token, the ballot, the stored ballot
// record, the spoiled (audited) ballot and the published result, with their canonical encodings and checks.
//
// It exists as its own package so that the chaincode (which accepts ballots)
// and `fabvote verify` (which re-checks them from the ledger alone) run the
// very same code, and so that one place defines what "canonical" means.
// The booth (package booth, compiled to WebAssembly) builds its ballots with
// it too, in two phases: PrecomputeBallot does every exponentiation before
// the voter chooses, BallotPrecomputation.Finish the rest (docs/PROTOCOL.md
// section 3.8).
//
// Encodings (docs/PROTOCOL.md has the full tables):
//
//   - Manifest and Result: encoding/json of the Go struct (deterministic: fields
//     in declaration order, byte slices in standard base64, times in RFC 3339
//     UTC). Parsers reject unknown fields, trailing data and any byte string
//     that is not exactly what Marshal would produce for the parsed value.
//   - Ballot: version byte 0x03, then seven fields each prefixed by a 4-byte
//     big-endian length: electionID, voterPub (65-byte uncompressed P-256
//     point), token (97 bytes: the voter's 32-byte pseudonym, the index of
//     the voter's ballot style, then the authority's r‖s), contests (the
//     index of each contest answered), ciphertext (the contests'
//     ciphertexts, CiphertextLen bytes each), proof (the contests' proofs,
//     of lengths fixed by the manifest), signature (64-byte r‖s).
//     Signatures must be low-S.
//   - Digests are SHA-256 over length-prefixed fields, the first of which is a
//     domain tag: "fabvote/manifest/v5" for the manifest digest,
//     "fabvote/token/v3" for tokens (binding the manifest digest, the
//     pseudonym, the ballot style and the voter key), "fabvote/ballot/v3"
//     for the voter's signature. The pseudonym is HMAC-SHA256 under the authority's secret
//     pseudonym key with the tag "fabvote/pseudonym/v1" (pseudonym.go); it is
//     the ballot's ledger key, so one voter has one ballot whatever keys the
//     authority signed for them. The manifest carries the commitment
//     SHA-256 with the tag "fabvote/pseudonym-key-commitment/v1" to that key,
//     and NewMinter refuses any other key, so no issuing path can derive a
//     second pseudonym for a voter. "fabvote/tracker/v1" tags a ballot's
//     tracker (tracker.go), over its election id, contests and ciphertexts
//     alone: what the voter sees before casting or auditing the ballot.
//     "fabvote/ciphertext/v1" tags a ciphertext's digest, which keys the
//     one claim on it (ciphertextclaim.go).
//   - Spoiled ballot (an audited ballot: its ciphertexts with the opening
//     that reveals them, and nothing of the voter's), checked by
//     Prepared.CheckSpoiled, and the claim a cast or a spoil writes on each
//     of its ciphertexts: canonical JSON (spoiled.go, ciphertextclaim.go).
//
// Every rejection is an *Error whose Code tells the reasons apart.
package election
