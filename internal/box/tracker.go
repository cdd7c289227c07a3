package box

import (
	"crypto/sha256"
	"encoding/binary"
)

// tracker is election.Tracker's definition (docs/PROTOCOL.md): SHA-256 of
// the length-prefixed fields "fabvote/tracker/v1", the election id, the
// contests and the ciphertexts, each with a 4-byte big-endian length, as
// election's digest prefixes them. It commits to the vote and to nothing
// that identifies the voter.
func tracker(electionID string, contests, ciphertext []byte) [32]byte {
	h := sha256.New()
	var l [4]byte
	for _, f := range [][]byte{[]byte("fabvote/tracker/v1"), []byte(electionID), contests, ciphertext} {
		binary.BigEndian.PutUint32(l[:], uint32(len(f)))
		h.Write(l[:])
		h.Write(f)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}
