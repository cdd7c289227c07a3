// Package kvtransfer is a small multi-key test chaincode.
//
// It exists to exercise what the ballot chaincode never does: transactions that
// read and write several keys, and range queries. Transfers between accounts
// preserve the sum of all balances, so a reader that sees a total other than
// n·amount has observed an inconsistent snapshot. The isolation tests of the
// lockless commit gate (txmgr/lockless, docs/FORK.md) run it alongside
// ballot casting; the network tests use it as the reference chaincode.
//
// Accounts are named "acct" followed by a six-digit, zero-padded index
// (acct000000, acct000001, …); the state value is the balance in decimal.
package kvtransfer

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/hyperledger/fabric-contract-api-go/v2/contractapi"
)

// Account key layout.
const (
	AccountPrefix = "acct"
	// MaxAccounts bounds Init so one transaction cannot write an unbounded set.
	MaxAccounts = 100000
	// MaxReadMany bounds ReadMany for the same reason.
	MaxReadMany = 1000
	rangeEnd    = AccountPrefix + "\x7f"
)

// Errors returned by the contract (wrapped with the offending value).
var (
	ErrBadArgument    = errors.New("bad argument")
	ErrExists         = errors.New("accounts already initialised")
	ErrNoAccount      = errors.New("no such account")
	ErrInsufficient   = errors.New("insufficient balance")
	ErrCorruptBalance = errors.New("corrupt balance")
)

// AccountKey is the state key of account i.
func AccountKey(i int) string { return fmt.Sprintf("%s%06d", AccountPrefix, i) }

// Contract is the kvtransfer smart contract.
type Contract struct {
	contractapi.Contract
}

// Init creates n accounts (acct000000 … acct{n-1}) each holding amount.
// It fails if the first account already exists.
func (c *Contract) Init(ctx contractapi.TransactionContextInterface, n int, amount int64) error {
	if n <= 0 || n > MaxAccounts {
		return fmt.Errorf("n = %d: must be in 1..%d: %w", n, MaxAccounts, ErrBadArgument)
	}
	if amount < 0 {
		return fmt.Errorf("amount = %d: must not be negative: %w", amount, ErrBadArgument)
	}
	stub := ctx.GetStub()
	first, err := stub.GetState(AccountKey(0))
	if err != nil {
		return fmt.Errorf("read %s: %w", AccountKey(0), err)
	}
	if first != nil {
		return ErrExists
	}
	v := []byte(strconv.FormatInt(amount, 10))
	for i := 0; i < n; i++ {
		if err := stub.PutState(AccountKey(i), v); err != nil {
			return fmt.Errorf("write %s: %w", AccountKey(i), err)
		}
	}
	return nil
}

// Transfer moves amount from one account to another: two reads, two writes.
func (c *Contract) Transfer(ctx contractapi.TransactionContextInterface, from, to string, amount int64) error {
	if amount <= 0 {
		return fmt.Errorf("amount = %d: must be positive: %w", amount, ErrBadArgument)
	}
	if from == to {
		return fmt.Errorf("from = to = %q: %w", from, ErrBadArgument)
	}
	fb, err := balance(ctx, from)
	if err != nil {
		return err
	}
	tb, err := balance(ctx, to)
	if err != nil {
		return err
	}
	if fb < amount {
		return fmt.Errorf("account %q holds %d, transfer of %d: %w", from, fb, amount, ErrInsufficient)
	}
	if tb > (1<<63-1)-amount {
		return fmt.Errorf("account %q would overflow: %w", to, ErrBadArgument)
	}
	stub := ctx.GetStub()
	if err := stub.PutState(from, []byte(strconv.FormatInt(fb-amount, 10))); err != nil {
		return fmt.Errorf("write %s: %w", from, err)
	}
	if err := stub.PutState(to, []byte(strconv.FormatInt(tb+amount, 10))); err != nil {
		return fmt.Errorf("write %s: %w", to, err)
	}
	return nil
}

// Total sums every account with one range query.
func (c *Contract) Total(ctx contractapi.TransactionContextInterface) (int64, error) {
	it, err := ctx.GetStub().GetStateByRange(AccountPrefix, rangeEnd)
	if err != nil {
		return 0, fmt.Errorf("range query: %w", err)
	}
	defer it.Close()
	var sum int64
	for it.HasNext() {
		kv, err := it.Next()
		if err != nil {
			return 0, fmt.Errorf("range query: %w", err)
		}
		b, err := parseBalance(kv.Key, kv.Value)
		if err != nil {
			return 0, err
		}
		sum += b
	}
	return sum, nil
}

// ReadMany reads each named account with a point read and returns the sum.
// keys is passed as a JSON array, e.g. ["acct000000","acct000001"].
func (c *Contract) ReadMany(ctx contractapi.TransactionContextInterface, keys []string) (int64, error) {
	if len(keys) == 0 || len(keys) > MaxReadMany {
		return 0, fmt.Errorf("keys: %d given, want 1..%d: %w", len(keys), MaxReadMany, ErrBadArgument)
	}
	var sum int64
	for _, k := range keys {
		b, err := balance(ctx, k)
		if err != nil {
			return 0, err
		}
		sum += b
	}
	return sum, nil
}

func balance(ctx contractapi.TransactionContextInterface, key string) (int64, error) {
	if key == "" {
		return 0, fmt.Errorf("account name is empty: %w", ErrBadArgument)
	}
	v, err := ctx.GetStub().GetState(key)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", key, err)
	}
	if v == nil {
		return 0, fmt.Errorf("account %q: %w", key, ErrNoAccount)
	}
	return parseBalance(key, v)
}

func parseBalance(key string, v []byte) (int64, error) {
	b, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || b < 0 {
		return 0, fmt.Errorf("account %q value %q: %w", key, v, ErrCorruptBalance)
	}
	return b, nil
}

// New returns the chaincode ready to be served.
func New() (*contractapi.ContractChaincode, error) {
	cc, err := contractapi.NewChaincode(&Contract{})
	if err != nil {
		return nil, fmt.Errorf("kvtransfer: %w", err)
	}
	cc.Info.Title = "kvtransfer"
	cc.Info.Version = "1.0"
	return cc, nil
}
