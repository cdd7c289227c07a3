package ballot

import (
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/hyperledger/fabric-contract-api-go/v2/contractapi"

	"github.com/fabvote/fabvote/election"
)

// Every ciphertext is claimed once (election.ObjCiphertext): by the cast of
// the ballot that holds it (a cast claim naming its pseudonym) or by the
// spoiled ballot that opened it (a spoiled claim naming its tracker). So no
// spoiled ballot can open a ciphertext that is cast, even as one piece of
// another ballot, and no cast ballot can hold a ciphertext whose vote is
// public. Two transactions claiming one ciphertext both read its key as
// absent, and MVCC lets the first to commit win.

// claimKeys is the claim key of each of cts, in order (a ciphertext that
// repeats in cts has its key repeated: the transaction reads and writes it
// once).
func claimKeys(ctx contractapi.TransactionContextInterface, electionID string, cts [][]byte) ([]string, error) {
	keys := make([]string, len(cts))
	for i, c := range cts {
		d := election.CiphertextDigest(c)
		key, err := ctx.GetStub().CreateCompositeKey(election.ObjCiphertext, []string{electionID, hex.EncodeToString(d[:])})
		if err != nil {
			return nil, internal(err, "ciphertext claim key")
		}
		keys[i] = key
	}
	return keys, nil
}

// firstClaim reads the claim keys in order, each once, and returns the
// first claim found with the index of its ciphertext, or nil when all are
// absent. A value that is no claim is INTERNAL: the contract writes nothing
// else there.
func firstClaim(ctx contractapi.TransactionContextInterface, keys []string) (*election.CiphertextClaim, int, error) {
	for i, key := range keys {
		if slices.Contains(keys[:i], key) {
			continue
		}
		raw, err := ctx.GetStub().GetState(key)
		if err != nil {
			return nil, 0, internal(err, "reading a ciphertext claim key")
		}
		if raw == nil {
			continue
		}
		claim, err := election.ParseCiphertextClaim(raw)
		if err != nil {
			return nil, 0, internal(fmt.Errorf("key %q: %w", key, err), "stored ciphertext claim")
		}
		return claim, i, nil
	}
	return nil, 0, nil
}

// checkCastClaimsFree is the cast's read of its ciphertexts' claim keys,
// after its ballot key: each must be absent. Errors: SPOILED (a ciphertext
// was opened by an audit: its vote is public), DUPLICATE (a ciphertext is
// already cast). It returns the keys, for writeClaims.
func checkCastClaimsFree(ctx contractapi.TransactionContextInterface, p *election.Prepared, b *election.Ballot) ([]string, error) {
	cts, err := p.Ciphertexts(b)
	if err != nil {
		return nil, err
	}
	return claimsFree(ctx, b.ElectionID, cts, func(c *election.CiphertextClaim, i int) error {
		if c.Kind == election.ClaimSpoiled {
			return election.Errorf(election.CodeSpoiled, "ciphertext %d of this ballot was opened by an audit (the spoiled ballot with tracker %s): its vote is public; make a new ballot", i, c.HolderHex())
		}
		return election.Errorf(election.CodeDuplicate, "ciphertext %d of this ballot is already cast (by pseudonym %s)", i, c.HolderHex())
	})
}

// checkSpoilClaimsFree is the spoil's read of its ciphertexts' claim keys,
// after its tracker key: each must be absent. Errors: CAST_OPENED (a
// ciphertext is cast: a cast vote is never opened), EXISTS (a ciphertext
// is already opened by another audit). It returns the keys, for
// writeClaims.
func checkSpoilClaimsFree(ctx contractapi.TransactionContextInterface, s *election.SpoiledBallot) ([]string, error) {
	return claimsFree(ctx, s.ElectionID, s.Ciphertexts, func(c *election.CiphertextClaim, i int) error {
		if c.Kind == election.ClaimCast {
			return election.Errorf(election.CodeCastOpened, "ciphertext %d of this ballot is cast (by pseudonym %s): a cast vote is never opened", i, c.HolderHex())
		}
		return election.Errorf(election.CodeExists, "ciphertext %d of this ballot is already opened by another audit (the spoiled ballot with tracker %s)", i, c.HolderHex())
	})
}

// claimsFree reads the claim keys of cts and returns them when none holds
// a claim; otherwise it returns refuse's error for the first claim found
// and its ciphertext's index.
func claimsFree(ctx contractapi.TransactionContextInterface, electionID string, cts [][]byte, refuse func(*election.CiphertextClaim, int) error) ([]string, error) {
	keys, err := claimKeys(ctx, electionID, cts)
	if err != nil {
		return nil, err
	}
	claim, i, err := firstClaim(ctx, keys)
	switch {
	case err != nil:
		return nil, err
	case claim != nil:
		return nil, refuse(claim, i)
	}
	return keys, nil
}

// writeClaims writes claim under each of keys, once each.
func writeClaims(ctx contractapi.TransactionContextInterface, keys []string, claim *election.CiphertextClaim) error {
	value := claim.Marshal()
	for i, key := range keys {
		if slices.Contains(keys[:i], key) {
			continue
		}
		if err := ctx.GetStub().PutState(key, value); err != nil {
			return internal(err, "writing a ciphertext claim")
		}
	}
	return nil
}
