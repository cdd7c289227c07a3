// Package ballotclient is the typed client of the ballot chaincode: one method per
// contract function, with the argument and result encodings of
// docs/PROTOCOL.md (raw canonical bytes in, JSON out), on top of a gateway
// connection. The CLI, the end-to-end test and the load generator share it so
// that the wire format lives in one place.
package ballotclient

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/chain"
	"github.com/fabvote/fabvote/internal/gateway"
	"github.com/hyperledger/fabric-protos-go-apiv2/peer"
)

// Client calls the ballot chaincode.
type Client struct {
	Conn *gateway.Conn
	// OwnOrgOnly has every query answered by a peer of the gateway peer's
	// own org (gateway.Conn.EvaluateInOwnOrg), and Blocks reads blocks there
	// too: a trustee reads each org's ledger separately and compares them
	// (package internal/trustee), as does the end-to-end test's check that
	// every org's peer validated the election alike.
	OwnOrgOnly bool
}

// New wraps a gateway connection.
func New(c *gateway.Conn) *Client { return &Client{Conn: c} }

func (c *Client) evaluate(ctx context.Context, fn string, args ...[]byte) ([]byte, error) {
	if c.OwnOrgOnly {
		return c.Conn.EvaluateInOwnOrg(ctx, fn, args...)
	}
	return c.Conn.Evaluate(ctx, fn, args...)
}

// OpenElection submits a canonical manifest.
func (c *Client) OpenElection(ctx context.Context, manifest []byte) (*gateway.Receipt, error) {
	return c.Conn.Submit(ctx, "OpenElection", manifest)
}

// CastReceipt is a cast ballot's receipt.
type CastReceipt struct {
	election.Receipt
	Block    uint64 `json:"block"`
	Attempts int    `json:"attempts,omitempty"`
}

// CastBallot submits a canonical ballot and waits for its commit. If a retry
// meets DUPLICATE because an earlier attempt did commit, the stored ballot is
// compared with ours and, when identical, reported as cast.
func (c *Client) CastBallot(ctx context.Context, ballot []byte) (*CastReceipt, error) {
	r, err := c.Conn.Submit(ctx, "CastBallot", ballot)
	if err != nil {
		var re *gateway.RejectError
		if errors.As(err, &re) && re.Code == election.CodeDuplicate && re.Attempts > 1 {
			if rc, ok := c.sameBallotStored(ctx, ballot); ok {
				return rc, nil
			}
		}
		var ce *gateway.CommitError
		if errors.As(err, &ce) && ce.Code == peer.TxValidationCode_ENDORSEMENT_POLICY_FAILURE {
			if re := c.validationRejection(ctx, ballot, ce); re != nil {
				return nil, re
			}
		}
		return nil, err
	}
	var rec election.Receipt
	if err := json.Unmarshal(r.Result, &rec); err != nil {
		return nil, fmt.Errorf("CastBallot committed in tx %s, but its receipt does not decode: %w", r.TxID, err)
	}
	return &CastReceipt{Receipt: rec, Block: r.Block, Attempts: r.Attempts}, nil
}

// SpoilReceipt is a spoiled ballot's receipt: the contract's answer
// (docs/PROTOCOL.md) and the block that holds it.
type SpoilReceipt struct {
	ElectionID string `json:"electionID"`
	Tracker    string `json:"tracker"` // lower-case hex: the spoiled ballot's key
	TxID       string `json:"txID"`
	Block      uint64 `json:"block"`
	Attempts   int    `json:"attempts,omitempty"`
}

// SpoilBallot submits a spoiled ballot's JSON text (a Benaloh challenge:
// the ballot's ciphertexts with their opening) and waits for its commit.
func (c *Client) SpoilBallot(ctx context.Context, spoiled []byte) (*SpoilReceipt, error) {
	r, err := c.Conn.Submit(ctx, "SpoilBallot", spoiled)
	if err != nil {
		return nil, err
	}
	var rc SpoilReceipt
	if err := json.Unmarshal(r.Result, &rc); err != nil {
		return nil, fmt.Errorf("SpoilBallot committed in tx %s, but its answer does not decode: %w", r.TxID, err)
	}
	rc.Block, rc.Attempts = r.Block, r.Attempts
	return &rc, nil
}

// validationRejection names why the peers' validation rejected a ballot.
// With the ballot validation plugin (O-IV) a ballot whose proof does not
// verify is endorsed and then marked ENDORSEMENT_POLICY_FAILURE at commit:
// Fabric's plugin API has no other code for it. The checks the plugin adds
// are the ballot's own checks against its manifest, which are
// deterministic, so the client repeats them and reports the rejection under
// the code the chaincode gives when it checks at endorsement (PROOF, TOKEN,
// ...). It returns nil when the ballot passes them: then the policy failure
// is the endorsements' own.
func (c *Client) validationRejection(ctx context.Context, ballot []byte, ce *gateway.CommitError) *gateway.RejectError {
	b, err := election.ParseBallot(ballot)
	if err == nil {
		var raw []byte
		if raw, err = c.GetManifest(ctx, b.ElectionID); err == nil {
			var m *election.Manifest
			if m, err = election.ParseManifest(raw); err == nil {
				err = election.CheckBallot(m, b)
			}
		}
	}
	code := election.CodeOf(err)
	if err == nil || code == "" || code == election.CodeNotFound || code == election.CodeInternal {
		return nil
	}
	return &gateway.RejectError{Fn: "CastBallot", Code: code, AtCommit: true,
		Msg: fmt.Sprintf("%v (transaction %s committed as invalid by the peers' ballot validation)", err, ce.TxID)}
}

func (c *Client) sameBallotStored(ctx context.Context, ballot []byte) (*CastReceipt, bool) {
	b, err := election.ParseBallot(ballot)
	if err != nil {
		return nil, false
	}
	rec, err := c.GetBallot(ctx, b.ElectionID, b.PseudonymHex())
	if err != nil {
		return nil, false
	}
	h := election.BallotHash(ballot)
	if rec.BallotHash != hex.EncodeToString(h[:]) {
		return nil, false
	}
	return &CastReceipt{Receipt: *rec}, true
}

// GetBallot returns the receipt of the ballot stored under a voter's
// pseudonym (hex, as in election.Ballot.PseudonymHex).
func (c *Client) GetBallot(ctx context.Context, electionID, pseudonymHex string) (*election.Receipt, error) {
	out, err := c.evaluate(ctx, "GetBallot", []byte(electionID), []byte(pseudonymHex))
	if err != nil {
		return nil, err
	}
	var rec election.Receipt
	if err := json.Unmarshal(out, &rec); err != nil {
		return nil, fmt.Errorf("GetBallot answer does not decode: %w", err)
	}
	return &rec, nil
}

// DefaultPageSize is the ListBallots page size used by Ballots.
const DefaultPageSize = 200

// ListBallots returns one page.
func (c *Client) ListBallots(ctx context.Context, electionID string, pageSize int, bookmark string) (*election.BallotPage, error) {
	out, err := c.evaluate(ctx, "ListBallots", []byte(electionID), []byte(strconv.Itoa(pageSize)), []byte(bookmark))
	if err != nil {
		return nil, err
	}
	var page election.BallotPage
	if err := json.Unmarshal(out, &page); err != nil {
		return nil, fmt.Errorf("ListBallots page does not decode: %w", err)
	}
	return &page, nil
}

// Ballots streams every ballot entry of an election, page by page.
func (c *Client) Ballots(ctx context.Context, electionID string, pageSize int) audit.BallotSource {
	if pageSize <= 0 {
		pageSize = DefaultPageSize
	}
	return func(fn func(election.BallotEntry) error) error {
		bookmark := ""
		for {
			page, err := c.ListBallots(ctx, electionID, pageSize, bookmark)
			if err != nil {
				return err
			}
			for _, e := range page.Ballots {
				if err := fn(e); err != nil {
					return err
				}
			}
			if page.Bookmark == "" || len(page.Ballots) == 0 {
				return nil
			}
			if page.Bookmark == bookmark {
				return fmt.Errorf("ListBallots returned the same bookmark twice")
			}
			bookmark = page.Bookmark
		}
	}
}

// CountBallots counts an election's ballots on the ledger.
func (c *Client) CountBallots(ctx context.Context, electionID string) (int, error) {
	n := 0
	err := c.Ballots(ctx, electionID, 1000)(func(election.BallotEntry) error { n++; return nil })
	return n, err
}

// GetManifest returns the manifest bytes on the ledger.
func (c *Client) GetManifest(ctx context.Context, electionID string) ([]byte, error) {
	return c.evaluate(ctx, "GetManifest", []byte(electionID))
}

// GetResult returns the published result bytes, or (nil, nil) if none is
// published yet.
func (c *Client) GetResult(ctx context.Context, electionID string) ([]byte, error) {
	out, err := c.evaluate(ctx, "GetResult", []byte(electionID))
	var re *gateway.RejectError
	if errors.As(err, &re) && re.Code == election.CodeNotFound {
		return nil, nil
	}
	return out, err
}

// WindowClosed evaluates the chaincode's WindowClosed: whether the peer that
// answers would now accept a result for the election, and so no longer a
// ballot. Trustees ask it before decrypting (package internal/trustee).
func (c *Client) WindowClosed(ctx context.Context, electionID string) (bool, error) {
	out, err := c.evaluate(ctx, "WindowClosed", []byte(electionID))
	if err != nil {
		return false, err
	}
	return parseWindowClosed(out)
}

// parseWindowClosed decodes WindowClosed's answer, JSON true or false.
func parseWindowClosed(out []byte) (bool, error) {
	var closed *bool // null is not an answer
	if err := json.Unmarshal(out, &closed); err != nil || closed == nil {
		return false, fmt.Errorf("WindowClosed answer %.40q is not JSON true or false", out)
	}
	return *closed, nil
}

// PublishResult submits a canonical result.
func (c *Client) PublishResult(ctx context.Context, result []byte) (*gateway.Receipt, error) {
	return c.Conn.Submit(ctx, "PublishResult", result)
}

// CommitOrder returns, for audit.Ledger.Order, a reader of when the
// election opened and its result was first written, of every write to its
// manifest and result keys and of every write to its ballot keys before and
// after the result. It
// reads every block of the channel through qscc, from the tip back to the
// genesis block: only that shows which write of the manifest key was the
// first (the opening), and so where the election's writes begin.
func (c *Client) CommitOrder(ctx context.Context, electionID string) func() (*audit.CommitOrder, error) {
	return func() (*audit.CommitOrder, error) {
		return audit.ReadCommitOrder(ctx, c.Blocks(), c.Conn.Chaincode(), electionID)
	}
}

// Trackers reads, for audit.Ledger.Trackers, the writes of the election's
// tracker and ciphertext claim keys from every block of the channel
// (docs/VERIFY.md V32).
func (c *Client) Trackers(ctx context.Context, electionID string) func() ([]audit.TrackerWrite, error) {
	return func() ([]audit.TrackerWrite, error) {
		return audit.ReadTrackerWrites(ctx, c.Blocks(), c.Conn.Chaincode(), electionID)
	}
}

// Blocks reads the channel's blocks through qscc, from a peer of the
// gateway peer's own org only when OwnOrgOnly is set: a block's
// transactions filter is the answering peer's own validation, so reading
// each org's ledger separately means reading its blocks there too.
func (c *Client) Blocks() chain.Reader {
	if c.OwnOrgOnly {
		return ownOrgBlocks{c.Conn}
	}
	return c.Conn
}

// ownOrgBlocks is a chain.Reader on a gateway peer's own org.
type ownOrgBlocks struct{ c *gateway.Conn }

func (o ownOrgBlocks) Height(ctx context.Context) (uint64, error) { return o.c.HeightInOwnOrg(ctx) }
func (o ownOrgBlocks) Block(ctx context.Context, n uint64) ([]byte, error) {
	return o.c.BlockInOwnOrg(ctx, n)
}
