package box

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/fabvote/fabvote/election"
)

// BallotRequest is the body of POST /v1/ballots.
type BallotRequest struct {
	Ballot string `json:"ballot"` // standard base64 of the ballot's canonical bytes
}

// Receipt is the answer to a committed ballot.
type Receipt struct {
	ElectionID string `json:"electionID"`
	Tracker    string `json:"tracker"`    // lower-case hex of the ballot's tracker
	BallotHash string `json:"ballotHash"` // lower-case hex of SHA-256(ballot bytes)
	Pseudonym  string `json:"pseudonym"`  // lower-case hex: the ballot's ledger key
	TxID       string `json:"txID"`
	Block      uint64 `json:"block"`
}

// SpoiledReceipt is the answer to a committed spoiled ballot.
type SpoiledReceipt struct {
	ElectionID string `json:"electionID"`
	Tracker    string `json:"tracker"`
	TxID       string `json:"txID"`
	Block      uint64 `json:"block"`
}

// castBallot answers POST /v1/ballots: the ballot is decoded and parsed
// here, so that a malformed one never reaches the gateway, then submitted.
func (s *Server) castBallot(w http.ResponseWriter, r *http.Request, _ string) {
	var req BallotRequest
	raw, rf := readBody(w, r, maxBallotBody)
	if rf == nil {
		rf = decodeStrict(raw, &req, `{"ballot":"<base64>"}`)
	}
	var ballot []byte
	var b *election.Ballot
	if rf == nil {
		ballot, b, rf = s.parseBallot(req.Ballot)
	}
	var rc *Receipt
	if rf == nil {
		rc, rf = s.submitBallot(r.Context(), ballot, b)
	}
	if rf != nil {
		s.refuse(w, r, routeBallots, rf)
		return
	}
	s.committed(w, routeBallots, "ballot", rc.ElectionID, rc.Block, rc)
}

// parseBallot decodes the base64 and parses the ballot, which must be of
// the box's election.
func (s *Server) parseBallot(b64 string) ([]byte, *election.Ballot, *refusal) {
	if b64 == "" {
		return nil, nil, badRequest(`"ballot" is missing or empty: send {"ballot":"<base64 of the ballot>"}`)
	}
	ballot, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil {
		return nil, nil, badRequest(`"ballot" is not standard base64 (%v): the booth that sent it is faulty; reload it and vote again`, err)
	}
	b, err := election.ParseBallot(ballot)
	if err != nil {
		rf := badRequest("the ballot does not decode (%v): the booth that made it is faulty; reload it and vote again", err)
		if election.CodeOf(err) == election.CodeSize {
			rf.status, rf.code = http.StatusRequestEntityTooLarge, election.CodeSize
		}
		return nil, nil, rf
	}
	if rf := s.checkElection(b.ElectionID); rf != nil {
		return nil, nil, rf
	}
	return ballot, b, nil
}

func (s *Server) checkElection(id string) *refusal {
	if id == s.cfg.ElectionID {
		return nil
	}
	return &refusal{status: http.StatusUnprocessableEntity, code: election.CodeNoElection,
		msg: fmt.Sprintf("this ballot box takes ballots of election %q, not %q: send it to a ballot box of your election", s.cfg.ElectionID, id)}
}

func (s *Server) submitBallot(ctx context.Context, ballot []byte, b *election.Ballot) (*Receipt, *refusal) {
	var rc *Receipt
	rf := s.submit(ctx, routeBallots, func(ctx context.Context) error {
		cr, err := s.cfg.Ledger.CastBallot(ctx, ballot)
		if err != nil {
			return err
		}
		tr, h := b.Tracker(), election.BallotHash(ballot)
		rc = &Receipt{ElectionID: b.ElectionID, Tracker: hex.EncodeToString(tr[:]), BallotHash: hex.EncodeToString(h[:]),
			Pseudonym: b.PseudonymHex(), TxID: cr.TxID, Block: cr.Block}
		return nil
	})
	return rc, rf
}

// spoilBallot answers POST /v1/spoiled. The box parses the spoiled ballot
// (election.ParseSpoiledBallot: format, keys, encodings), so that a malformed
// one never reaches the gateway; the contract checks its opening.
func (s *Server) spoilBallot(w http.ResponseWriter, r *http.Request, _ string) {
	raw, rf := readBody(w, r, maxSpoiledBody)
	var sp *election.SpoiledBallot
	if rf == nil {
		var err error
		if sp, err = election.ParseSpoiledBallot(raw); err != nil {
			rf = badRequest("the spoiled ballot does not decode (%v): the booth that sent it is faulty; reload it", err)
		}
	}
	if rf == nil {
		rf = s.checkElection(sp.ElectionID)
	}
	var rc *SpoiledReceipt
	if rf == nil {
		rf = s.submit(r.Context(), routeSpoiled, func(ctx context.Context) error {
			sr, err := s.cfg.Ledger.SpoilBallot(ctx, raw)
			if err == nil {
				rc = &SpoiledReceipt{ElectionID: sr.ElectionID, Tracker: sr.Tracker, TxID: sr.TxID, Block: sr.Block}
			}
			return err
		})
	}
	if rf != nil {
		s.refuse(w, r, routeSpoiled, rf)
		return
	}
	s.committed(w, routeSpoiled, "spoiled ballot", rc.ElectionID, rc.Block, rc)
}

// committed answers a submission committed valid with its receipt, and
// logs and counts it, without the client's address: the log never joins
// an address to a ballot.
func (s *Server) committed(w http.ResponseWriter, route, what, electionID string, block uint64, receipt any) {
	s.logf("%s committed: election %q, block %d", what, electionID, block)
	writeJSON(w, http.StatusOK, receipt)
	s.metrics.count(route, codeOK)
}

// getManifest answers GET /v1/elections/{id}/manifest with the manifest's
// bytes on the ledger.
func (s *Server) getManifest(w http.ResponseWriter, r *http.Request, id string) {
	if id != s.cfg.ElectionID {
		s.refuse(w, r, routeManifest, &refusal{status: http.StatusNotFound, code: CodeNotFound,
			msg: fmt.Sprintf("this ballot box serves election %q only", s.cfg.ElectionID)})
		return
	}
	var m []byte
	rf := s.submit(r.Context(), routeManifest, func(ctx context.Context) (err error) {
		m, err = s.cfg.Ledger.GetManifest(ctx, id)
		return err
	})
	if rf != nil {
		s.refuse(w, r, routeManifest, rf)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(m)
	s.metrics.count(routeManifest, codeOK)
}

// submit runs fn, a call to the gateway, in one of the box's slots under
// the submission timeout, and maps its error. The call is detached from the
// request: a voter who hangs up does not leave a transaction half-sent.
func (s *Server) submit(ctx context.Context, route string, fn func(ctx context.Context) error) *refusal {
	select {
	case s.slots <- struct{}{}:
	default:
		return busy
	}
	defer func() { <-s.slots }()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.Limits.SubmitTimeout)
	defer cancel()
	t0 := time.Now()
	err := fn(ctx)
	s.metrics.latency.WithLabelValues(route).Observe(time.Since(t0).Seconds())
	if err != nil {
		return ledgerRefusal(err)
	}
	return nil
}

// readBody reads a JSON request body of at most limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, *refusal) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, &refusal{status: http.StatusUnsupportedMediaType, code: election.CodeDecode,
			msg: "send the request with Content-Type: application/json"}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, &refusal{status: http.StatusRequestEntityTooLarge, code: election.CodeSize,
			msg: fmt.Sprintf("the request is larger than %d bytes, more than any ballot of an election: the booth that sent it is faulty", limit)}
	case err != nil:
		return nil, badRequest("reading the request: %v", err)
	}
	return body, nil
}

// decodeStrict decodes one JSON object of exactly the keys of v.
func decodeStrict(raw []byte, v any, shape string) *refusal {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest("the request is not JSON of %s: %v", shape, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return badRequest("the request has more after its JSON object; send %s alone", shape)
	}
	return nil
}
