// Package delaywork is the chaincode of the commit gate's end-to-end
// benchmark: a transaction whose execution takes a fixed time D, as in
// Paneru 2021, Table 6.1, where the chaincode sleeps to stand for a long
// computation.
//
// Work reads one key, sleeps D and writes that key (one point read, one
// write of a key no one wrote before), so the lockless commit gate (O-III)
// runs it without the commit lock. (A ballot cast reads its ballot key and
// one claim key per ciphertext, and escalates on the second.) The sleep
// holds the simulation open for D without using CPU: what the benchmark
// measures is how the commit lock makes commits and simulations wait for
// each other, not the CPU.
package delaywork

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hyperledger/fabric-contract-api-go/v2/contractapi"
)

// Bounds of a request.
const (
	// MaxDelay bounds the sleep so one transaction cannot hold a simulation
	// (and, in mode locked, every commit) for longer than this.
	MaxDelay = 10 * time.Second
	// MaxKeyLen bounds the key written.
	MaxKeyLen = 64
)

// Errors returned by the contract (wrapped with the offending value).
var (
	ErrBadRequest = errors.New("bad request")
	ErrWritten    = errors.New("key already written")
)

// Request is Work's argument, as JSON: {"key":"w-0001","delay":"50ms"}.
type Request struct {
	Key   string `json:"key"`
	Delay string `json:"delay"` // a Go duration, 0 ≤ delay ≤ MaxDelay
}

// ParseRequest decodes and checks a Work request; it returns the key and the delay.
func ParseRequest(raw []byte) (string, time.Duration, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "", 0, fmt.Errorf("request is empty: want {\"key\":…,\"delay\":…}: %w", ErrBadRequest)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var r Request
	if err := dec.Decode(&r); err != nil {
		return "", 0, fmt.Errorf("request %q: %v: %w", clip(raw), err, ErrBadRequest)
	}
	// More() misses a stray ] or }; only the end of the input will do.
	if _, err := dec.Token(); err != io.EOF {
		return "", 0, fmt.Errorf("request %q: data after the JSON object: %w", clip(raw), ErrBadRequest)
	}
	if err := checkKey(r.Key); err != nil {
		return "", 0, err
	}
	d, err := time.ParseDuration(r.Delay)
	if err != nil {
		return "", 0, fmt.Errorf("delay %q: %v: %w", r.Delay, err, ErrBadRequest)
	}
	if d < 0 || d > MaxDelay {
		return "", 0, fmt.Errorf("delay %v: want 0..%v: %w", d, MaxDelay, ErrBadRequest)
	}
	return r.Key, d, nil
}

// checkKey accepts 1..MaxKeyLen printable ASCII characters.
func checkKey(key string) error {
	if key == "" || len(key) > MaxKeyLen {
		return fmt.Errorf("key of %d bytes: want 1..%d: %w", len(key), MaxKeyLen, ErrBadRequest)
	}
	for i := 0; i < len(key); i++ {
		if key[i] <= ' ' || key[i] > '~' {
			return fmt.Errorf("key %q: byte %d is not printable ASCII: %w", key, i, ErrBadRequest)
		}
	}
	return nil
}

// clip shortens raw input quoted in an error.
func clip(raw []byte) []byte {
	if len(raw) > 80 {
		return raw[:80]
	}
	return raw
}

// Contract is the delaywork smart contract.
type Contract struct {
	contractapi.Contract
	// sleep is time.Sleep; tests replace it.
	sleep func(time.Duration)
}

// Work reads request's key, which must not exist yet, sleeps its delay and
// writes the key (the value is the delay).
func (c *Contract) Work(ctx contractapi.TransactionContextInterface, request string) error {
	key, d, err := ParseRequest([]byte(request))
	if err != nil {
		return err
	}
	stub := ctx.GetStub()
	old, err := stub.GetState(key)
	if err != nil {
		return fmt.Errorf("read %s: %w", key, err)
	}
	if old != nil {
		return fmt.Errorf("key %q: %w", key, ErrWritten)
	}
	c.sleepFor(d)
	if err := stub.PutState(key, []byte(d.String())); err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	return nil
}

func (c *Contract) sleepFor(d time.Duration) {
	if c.sleep != nil {
		c.sleep(d)
		return
	}
	time.Sleep(d)
}

// New returns the chaincode ready to be served.
func New() (*contractapi.ContractChaincode, error) {
	cc, err := contractapi.NewChaincode(&Contract{})
	if err != nil {
		return nil, fmt.Errorf("delaywork: %w", err)
	}
	cc.Info.Title = "delaywork"
	cc.Info.Version = "1.0"
	return cc, nil
}
