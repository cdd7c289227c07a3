package relay

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fabvote/fabvote/internal/ceremony/config"
	"github.com/fabvote/fabvote/internal/ceremony/envelope"
)

// maxAnswer bounds a relay's answer as the client reads it: the server
// sends at most MaxResponse ≤ envelope.MaxLen bytes of messages plus one
// more, in base64, in JSON.
var maxAnswer = int64(base64.StdEncoding.EncodedLen(2*envelope.MaxLen)) + 1<<16

// maxPending bounds the messages a client holds from one sender beyond a
// gap in its chain.
const maxPending = 1 << 12

// Client is trustee Me's view of the relay: it posts its messages and polls
// the log, verifies every message against the ceremony config, follows each
// sender's chain, and hands out the messages to Me or to all, round by
// round. A message that fails its check is set aside (Rejected), not
// fatal: anyone may post to the relay. Equivocation, signed by its author,
// is fatal. A Client is for one goroutine.
type Client struct {
	cfg  *config.Config
	me   uint8
	url  string
	HTTP *http.Client
	Poll time.Duration // pause between polls that bring nothing new

	next     int // relay index read so far
	chains   map[uint8]*envelope.Chain
	pending  map[uint8]map[uint32]*envelope.Envelope // beyond a gap in the sender's chain
	inbox    map[Want]*envelope.Envelope             // verified, to Me or to all, not yet handed out
	seen     map[Want]uint32                         // seq of every message filed, handed out or not
	rejected []Rejection
	lastErr  error // of the last poll
}

// NewClient is trustee me's client of cfg's relay.
func NewClient(cfg *config.Config, me int) (*Client, error) {
	if _, ok := cfg.Trustee(me); !ok {
		return nil, fmt.Errorf("relay client: trustee %d is not in the ceremony's %d", me, cfg.N)
	}
	c := &Client{
		cfg:     cfg,
		me:      uint8(me),
		url:     strings.TrimSuffix(cfg.Relay, "/") + "/v1/ceremonies/" + cfg.Ceremony + "/messages",
		HTTP:    &http.Client{Timeout: 3 * time.Minute},
		Poll:    500 * time.Millisecond,
		chains:  map[uint8]*envelope.Chain{},
		pending: map[uint8]map[uint32]*envelope.Envelope{},
		inbox:   map[Want]*envelope.Envelope{},
		seen:    map[Want]uint32{},
	}
	for _, t := range cfg.Trustees {
		c.chains[uint8(t.Index)] = envelope.NewChain(uint8(t.Index), t.Name)
	}
	return c, nil
}

// Rejection is a message of the log that failed its check.
type Rejection struct {
	Index   int   // in the relay's log
	Claimed uint8 // the sender its header names, 0 if it does not parse
	Err     error
}

func (r Rejection) String() string {
	if r.Claimed == 0 {
		return fmt.Sprintf("#%d: %v", r.Index, r.Err)
	}
	return fmt.Sprintf("#%d claiming trustee %d: %v", r.Index, r.Claimed, r.Err)
}

// Rejected lists the messages that failed their check so far.
func (c *Client) Rejected() []Rejection { return append([]Rejection(nil), c.rejected...) }

// Post sends one envelope and returns its index in the log. Posting the
// same bytes again is harmless: the relay keeps one copy.
func (c *Client) Post(ctx context.Context, raw []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(raw))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	var p Posted
	if err := c.do(req, &p, http.StatusCreated, http.StatusOK); err != nil {
		return 0, fmt.Errorf("posting to the relay: %w", err)
	}
	return p.Index, nil
}

// fetch reads the log after c.next once and takes in what it holds. It
// returns how many messages came, and a fatal error only (equivocation, a
// broken chain).
func (c *Client) fetch(ctx context.Context) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url+"?since="+strconv.Itoa(c.next), nil)
	if err != nil {
		return 0, err
	}
	var m Messages
	if c.lastErr = c.do(req, &m, http.StatusOK); c.lastErr != nil {
		return 0, nil
	}
	if m.Since != c.next {
		c.lastErr = fmt.Errorf("the relay answered since=%d for since=%d", m.Since, c.next)
		return 0, nil
	}
	for _, raw := range m.Messages {
		c.next++
		if err := c.take(c.next, raw); err != nil {
			return 0, err
		}
	}
	return len(m.Messages), nil
}

// do sends req and decodes a JSON answer with one of the ok statuses into
// v; any other answer is an error with the relay's refusal.
func (c *Client) do(req *http.Request, v any, ok ...int) error {
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return err
	}
	if int64(len(body)) > maxAnswer {
		return fmt.Errorf("the relay's answer is larger than %d bytes", maxAnswer)
	}
	for _, s := range ok {
		if resp.StatusCode == s {
			return json.Unmarshal(body, v)
		}
	}
	var rf Refusal
	if json.Unmarshal(body, &rf) == nil && rf.Code != "" {
		return fmt.Errorf("relay refused (%s, %s): %s", resp.Status, rf.Code, rf.Error)
	}
	return fmt.Errorf("relay answered %s", resp.Status)
}
