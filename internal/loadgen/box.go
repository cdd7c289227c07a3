package loadgen

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/fabvote/fabvote/internal/box"
)

// BoxTarget casts ballots through a ballot box (`fabvote box serve`)
// instead of the gateway: each ballot is POSTed to the box's
// box.BallotsPath, and the box answers once the ballot's transaction has
// committed. A sample spans the request, from before its body is built to
// the box's answer read: the span of FabricTarget's commit latency plus
// what the box adds (HTTPS, its checks, its own gateway client).
type BoxTarget struct {
	url    string
	client *http.Client
}

// BoxOptions configure a BoxTarget.
type BoxOptions struct {
	// URL is the box's base, https://HOST:PORT.
	URL string
	// CACert is the PEM of the CA that signed the box's TLS certificate.
	CACert []byte
	// Conns bounds the connections to the box, each kept alive for the
	// next request (HTTP/1.1); a request that finds all busy waits for one,
	// and the wait is part of its latency.
	Conns int
	// Timeout bounds one request, connection to answer (0 = 2 min).
	Timeout time.Duration
	// Remote lets the box be on another host; without it a box that is not
	// on this host is refused (CheckLoopback).
	Remote bool
}

// NewBoxTarget checks opts and returns the target.
func NewBoxTarget(opts BoxOptions) (*BoxTarget, error) {
	u, err := boxURL(opts.URL, opts.Remote)
	if err != nil {
		return nil, err
	}
	if opts.Conns < 1 {
		return nil, fmt.Errorf("box connections %d: want at least 1", opts.Conns)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(opts.CACert) {
		return nil, errors.New("the box's CA certificate: no PEM certificate in it")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Minute
	}
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		MaxConnsPerHost:     opts.Conns,
		MaxIdleConnsPerHost: opts.Conns,
		IdleConnTimeout:     90 * time.Second,
		// A non-nil empty map keeps the transport on HTTP/1.1: one request
		// per connection at a time, as a voter's browser sends one ballot.
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
	return &BoxTarget{url: u + box.BallotsPath, client: &http.Client{Transport: tr, Timeout: opts.Timeout}}, nil
}

// boxURL checks that raw is https://HOST:PORT with nothing after it, and
// returns it without a trailing slash.
func boxURL(raw string, remote bool) (string, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", fmt.Errorf("box address %q: %w", raw, err)
	case u.Scheme != "https":
		return "", fmt.Errorf("box address %q: want https://HOST:PORT (the box serves HTTPS only)", raw)
	case u.Port() == "":
		return "", fmt.Errorf("box address %q: no port; want https://HOST:PORT", raw)
	case (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return "", fmt.Errorf("box address %q: want https://HOST:PORT alone; the ballots' path %s is added to it", raw, box.BallotsPath)
	}
	if !remote {
		if err := CheckLoopback(u.Host); err != nil {
			return "", fmt.Errorf("box address %q: %w", raw, err)
		}
	}
	return "https://" + u.Host, nil
}

// URL is where the target POSTs ballots.
func (t *BoxTarget) URL() string { return t.url }

// Close closes the idle connections to the box.
func (t *BoxTarget) Close() { t.client.CloseIdleConnections() }

// Do implements Target: a 200 with a receipt is a committed ballot; any
// other answer fails with the box's refusal code ("box: DUPLICATE").
func (t *BoxTarget) Do(ctx context.Context, _ int, payload []byte) Sample {
	s := Sample{Start: time.Now()}
	body, err := json.Marshal(box.BallotRequest{Ballot: base64.StdEncoding.EncodeToString(payload)})
	if err != nil {
		return failed(s, "box: building the request")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return failed(s, "box: building the request")
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.client.Do(req)
	if err != nil {
		return failed(s, boxErrorReason(err))
	}
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return failed(s, boxErrorReason(err))
	}
	s.Done = time.Now()
	s.Reason = boxAnswerReason(resp.StatusCode, answer)
	s.OK = s.Reason == ""
	return s
}

// boxAnswerReason is "" for a 200 with a receipt, or the failure reason of
// the box's answer: its refusal code, or its HTTP status when the answer
// is not a refusal.
func boxAnswerReason(status int, answer []byte) string {
	if status == http.StatusOK {
		var rc box.Receipt
		if json.Unmarshal(answer, &rc) != nil || rc.TxID == "" {
			return "box: 200 without a receipt"
		}
		return ""
	}
	var rf box.Refusal
	if json.Unmarshal(answer, &rf) != nil || rf.Code == "" {
		return fmt.Sprintf("box: HTTP %d", status)
	}
	return "box: " + rf.Code
}

// boxErrorReason names a request that got no answer: a timeout, or the
// connection's failure.
func boxErrorReason(err error) string {
	var ue *url.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ue) && ue.Timeout():
		return "box: timeout"
	case errors.Is(err, context.Canceled):
		return "box: cancelled"
	}
	return "box: connection error"
}
