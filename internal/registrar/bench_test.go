package registrar

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// BenchmarkRegisterAfterPrefill is the registration latency target: a
// registration (request decoding, limits, roll check, token signature and
// the fsync'd commit, through the HTTP handler without TLS) with
// FABVOTE_BENCH_REGISTERED voters (default 1,000,000) already in the state.
// It reports p50 and p99 in ms. The prefill writes ~300 MB and takes a while:
//
//	go test -run '^$' -bench RegisterAfterPrefill -benchtime 2000x ./internal/registrar/
func BenchmarkRegisterAfterPrefill(b *testing.B) {
	registered := 1_000_000
	if v := os.Getenv("FABVOTE_BENCH_REGISTERED"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			b.Fatalf("FABVOTE_BENCH_REGISTERED=%q: want a count", v)
		}
		registered = n
	}
	const fresh = 100_000 // voters the measured registrations draw from
	path := filepath.Join(b.TempDir(), "state.db")
	roll, codes := benchRoll(b, fresh)
	mint, _, manifest := testMinter(b, "e1", uint64(registered+fresh))
	binding, err := NewBinding("e1", manifest, uint64(registered+fresh), roll)
	if err != nil {
		b.Fatal(err)
	}
	if err := InitStore(path, binding); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	prefill(b, path, registered)
	b.Logf("prefilled %d registrations in %v", registered, time.Since(start))
	st, err := OpenStore(path, binding)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	guard, _ := NewGuard(openLimits())
	srv := &Server{ElectionID: "e1", Mint: mint.MintCancelable, Roll: roll, Store: st, Guard: guard}
	next := 0
	b.Run(fmt.Sprintf("registered=%d", registered), func(b *testing.B) {
		if next+b.N > fresh {
			b.Skipf("b.N %d: at most %d registrations per run", b.N, fresh-next)
		}
		bodies := benchBodies(b, codes[next:next+b.N])
		next += b.N
		lat := make([]time.Duration, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, Path, bytes.NewReader(bodies[i])))
			lat[i] = time.Since(t0)
			if rec.Code != http.StatusOK {
				b.Fatalf("registration %d: HTTP %d %s", i, rec.Code, rec.Body)
			}
		}
		b.StopTimer()
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	})
}

func benchRoll(b *testing.B, n int) (*Roll, [][2]string) {
	var sb strings.Builder
	var codes [][2]string
	for i := 0; i < n; i++ {
		code, err := NewCode()
		if err != nil {
			b.Fatal(err)
		}
		id := fmt.Sprintf("new-%07d", i)
		fmt.Fprintf(&sb, "%s,%s\n", id, code)
		codes = append(codes, [2]string{id, code})
	}
	roll, err := ParseRoll(strings.NewReader(sb.String()), "bench")
	if err != nil {
		b.Fatal(err)
	}
	return roll, codes
}

func benchBodies(b *testing.B, codes [][2]string) [][]byte {
	out := make([][]byte, len(codes))
	for i, c := range codes {
		out[i], _ = json.Marshal(&Request{ElectionID: "e1", VoterID: c[0], Code: c[1], VoterPub: voterPub(b)})
	}
	return out
}

// prefill writes n registrations of realistic size (random 65-byte keys and
// 72-byte tokens) in large transactions, and sets the issued count.
func prefill(b *testing.B, path string, n int) {
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const batch = 50_000
	pub, tok := make([]byte, 65), make([]byte, 72)
	for lo := 0; lo < n; lo += batch {
		err := db.Update(func(tx *bolt.Tx) error {
			regs := tx.Bucket(bucketRegs)
			regs.FillPercent = 0.9
			for i := lo; i < min(lo+batch, n); i++ {
				rand.Read(pub)
				rand.Read(tok)
				id := fmt.Sprintf("voter-%07d", i)
				val, _ := json.Marshal(&Registration{VoterID: id, VoterPub: pub, Token: tok, Time: time.Now().UTC()})
				if err := regs.Put([]byte(id), val); err != nil {
					return err
				}
			}
			return tx.Bucket(bucketMeta).Put(keyIssued, binary.BigEndian.AppendUint64(nil, uint64(min(lo+batch, n))))
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
