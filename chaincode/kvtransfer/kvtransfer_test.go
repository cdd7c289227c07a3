package kvtransfer

import (
	"errors"
	"testing"

	"github.com/fabvote/fabvote/chaincode/internal/stubtest"
)

func TestInit(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		amount  int64
		wantErr error
		total   int64
	}{
		{"ten accounts", 10, 100, nil, 1000},
		{"one account", 1, 7, nil, 7},
		{"zero accounts", 0, 7, ErrBadArgument, 0},
		{"too many", MaxAccounts + 1, 1, ErrBadArgument, 0},
		{"negative amount", 3, -1, ErrBadArgument, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := stubtest.New()
			c := &Contract{}
			err := c.Init(s.Context(), tc.n, tc.amount)
			s.End(err == nil)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Init error = %v, want %v", err, tc.wantErr)
			}
			got, err := c.Total(s.Context())
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.total {
				t.Fatalf("Total = %d, want %d", got, tc.total)
			}
		})
	}
}

func TestInitTwice(t *testing.T) {
	s := stubtest.New()
	c := &Contract{}
	if err := c.Init(s.Context(), 2, 5); err != nil {
		t.Fatal(err)
	}
	s.End(true)
	err := c.Init(s.Context(), 2, 5)
	if !errors.Is(err, ErrExists) {
		t.Fatalf("second Init error = %v, want %v", err, ErrExists)
	}
}

func TestTransfer(t *testing.T) {
	tests := []struct {
		name     string
		from, to string
		amount   int64
		wantErr  error
		fromBal  int64
		toBal    int64
	}{
		{"move 30", AccountKey(0), AccountKey(1), 30, nil, 70, 130},
		{"move all", AccountKey(0), AccountKey(1), 100, nil, 0, 200},
		{"overdraw", AccountKey(0), AccountKey(1), 101, ErrInsufficient, 100, 100},
		{"zero", AccountKey(0), AccountKey(1), 0, ErrBadArgument, 100, 100},
		{"negative", AccountKey(0), AccountKey(1), -5, ErrBadArgument, 100, 100},
		{"self", AccountKey(0), AccountKey(0), 5, ErrBadArgument, 100, 100},
		{"unknown from", "acct999999", AccountKey(1), 5, ErrNoAccount, 100, 100},
		{"unknown to", AccountKey(0), "nobody", 5, ErrNoAccount, 100, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := stubtest.New()
			c := &Contract{}
			if err := c.Init(s.Context(), 3, 100); err != nil {
				t.Fatal(err)
			}
			s.End(true)
			err := c.Transfer(s.Context(), tc.from, tc.to, tc.amount)
			s.End(err == nil)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Transfer error = %v, want %v", err, tc.wantErr)
			}
			got, err := c.ReadMany(s.Context(), []string{AccountKey(0)})
			if err != nil || got != tc.fromBal {
				t.Fatalf("from balance = %d (%v), want %d", got, err, tc.fromBal)
			}
			got, err = c.ReadMany(s.Context(), []string{AccountKey(1)})
			if err != nil || got != tc.toBal {
				t.Fatalf("to balance = %d (%v), want %d", got, err, tc.toBal)
			}
			total, err := c.Total(s.Context())
			if err != nil || total != 300 {
				t.Fatalf("Total = %d (%v), want 300", total, err)
			}
		})
	}
}

func TestReadMany(t *testing.T) {
	s := stubtest.New()
	c := &Contract{}
	if err := c.Init(s.Context(), 4, 25); err != nil {
		t.Fatal(err)
	}
	s.End(true)
	s.State["acct000003"] = []byte("x1")
	tests := []struct {
		name    string
		keys    []string
		want    int64
		wantErr error
	}{
		{"two", []string{AccountKey(0), AccountKey(1)}, 50, nil},
		{"three", []string{AccountKey(0), AccountKey(1), AccountKey(2)}, 75, nil},
		{"none", nil, 0, ErrBadArgument},
		{"missing", []string{AccountKey(0), "acct000777"}, 0, ErrNoAccount},
		{"empty name", []string{""}, 0, ErrBadArgument},
		{"corrupt", []string{AccountKey(3)}, 0, ErrCorruptBalance},
		{"too many", make([]string, MaxReadMany+1), 0, ErrBadArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.ReadMany(s.Context(), tc.keys)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("ReadMany error = %v, want %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Fatalf("ReadMany = %d, want %d", got, tc.want)
			}
		})
	}
	if _, err := c.Total(s.Context()); !errors.Is(err, ErrCorruptBalance) {
		t.Fatalf("Total over a corrupt balance: error = %v, want %v", err, ErrCorruptBalance)
	}
}

func TestNewExposesFunctions(t *testing.T) {
	cc, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if cc.Info.Title != "kvtransfer" {
		t.Fatalf("title = %q", cc.Info.Title)
	}
}
