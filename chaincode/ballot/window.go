package ballot

import (
	"encoding/json"
	"time"

	"github.com/hyperledger/fabric-contract-api-go/v2/contractapi"

	"github.com/fabvote/fabvote/election"
)

// The window rule (docs/PROTOCOL.md section 7.7). Fabric lets the client
// choose the transaction timestamp, so a rule on the timestamp alone lets a
// client publish a result while honest peers, by their own clocks, still
// accept ballots. Every decision therefore also reads this peer's clock:
//
//   - a ballot is accepted only while both the timestamp and the peer's
//     clock are in [start, end);
//   - a result is accepted only when both are at or after end + S, S being
//     the manifest's maxClockSkewSeconds.
//
// If the clocks of any two honest endorsing peers differ by at most S, then
// when one honest peer accepts a result (its clock ≥ end + S), every other
// honest peer's clock is ≥ end, and it refuses ballots: no honest peer
// accepts a result while any honest peer would still accept a ballot.

// checkCastWindow applies the ballot half of the rule to timestamp t.
func (e *engine) checkCastWindow(m *election.Manifest, t time.Time) error {
	if t.Before(m.Start) || !t.Before(m.End) {
		return election.Errorf(election.CodeWindow, "transaction time %s is outside the voting window [%s, %s)",
			t.UTC().Format(time.RFC3339), m.Start.Format(time.RFC3339), m.End.Format(time.RFC3339))
	}
	if now := e.now(); now.Before(m.Start) || !now.Before(m.End) {
		return election.Errorf(election.CodeWindow, "this peer's clock (%s) is outside the voting window [%s, %s)",
			now.UTC().Format(time.RFC3339), m.Start.Format(time.RFC3339), m.End.Format(time.RFC3339))
	}
	return nil
}

// checkResultTime applies the result half of the rule to timestamp t.
func (e *engine) checkResultTime(m *election.Manifest, t time.Time) error {
	nb := m.ResultNotBefore()
	if t.Before(nb) {
		return election.Errorf(election.CodeWindow, "a result is accepted from %s (window end %s + clock skew %s); the transaction time is %s",
			nb.Format(time.RFC3339), m.End.Format(time.RFC3339), m.MaxClockSkew(), t.UTC().Format(time.RFC3339))
	}
	if now := e.now(); now.Before(nb) {
		return election.Errorf(election.CodeWindow, "a result is accepted from %s (window end %s + clock skew %s); this peer's clock says %s",
			nb.Format(time.RFC3339), m.End.Format(time.RFC3339), m.MaxClockSkew(), now.UTC().Format(time.RFC3339))
	}
	return nil
}

// WindowClosed answers JSON true when this peer would accept a result of
// the election now (the rule of checkResultTime on this proposal's
// timestamp and this peer's clock), else false. Trustees call it before
// they decrypt. Use it from evaluate transactions: it writes nothing.
func (c *Contract) WindowClosed(ctx contractapi.TransactionContextInterface, electionID string) (out string, err error) {
	defer recoverInternal(&err)
	if err := checkID(electionID); err != nil {
		return "", err
	}
	p, err := c.e.election(ctx, electionID)
	if err != nil {
		return "", err
	}
	t, err := c.e.txTime(ctx)
	if err != nil {
		return "", err
	}
	closed, _ := json.Marshal(c.e.checkResultTime(p.Manifest, t) == nil)
	return string(closed), nil
}
