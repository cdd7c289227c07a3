package protocol

import (
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"
)

// secretsOf is one trustee's secrets of the accepted key, copied at the
// end of its run.
type secretsOf struct {
	me                int
	p, q, m, d, share *big.Int
}

// copySecrets copies what reveal exposes, reading D_i and s_i from the
// unexported fields that hold them (keyshare.Party.poly[0],
// threshold.KeyShare.secret).
func copySecrets(t *testing.T, r revealed) secretsOf {
	t.Helper()
	poly := reflect.ValueOf(r.party).Elem().FieldByName("poly")
	secret := reflect.ValueOf(r.share).Elem().FieldByName("secret")
	if !poly.IsValid() || poly.Len() == 0 || !secret.IsValid() {
		t.Error("keyshare.Party.poly or threshold.KeyShare.secret is gone: update the view test")
		return secretsOf{}
	}
	return secretsOf{
		me: r.me, p: new(big.Int).Set(r.p), q: new(big.Int).Set(r.q), m: new(big.Int).Set(r.m),
		d:     new(big.Int).Set((*big.Int)(poly.Index(0).UnsafePointer())),
		share: new(big.Int).Set((*big.Int)(secret.UnsafePointer())),
	}
}

// checkViews fails the test when leak finds a secret in a trustee's view.
func checkViews(t *testing.T, all []secretsOf, recorders []*recorder) {
	t.Helper()
	views := make([][][]byte, len(recorders))
	for i, rec := range recorders {
		views[i] = rec.bodies
	}
	if err := leak(all, views); err != nil {
		t.Fatal(err)
	}
}

// leak returns an error when a trustee received nothing, a body it cannot
// decode, or, in any body, another trustee's p_j, q_j, m_j, D_j or s_j.
func leak(all []secretsOf, views [][][]byte) error {
	for i, bodies := range views {
		others := map[string]string{} // key(secret) → whose and which
		for j, s := range all {
			if j == i {
				continue
			}
			if s.p == nil {
				return fmt.Errorf("trustee %d revealed nothing", j+1)
			}
			for name, v := range map[string]*big.Int{"p": s.p, "q": s.q, "m": s.m, "D": s.d, "s": s.share} {
				others[key(v)] = fmt.Sprintf("trustee %d's %s", j+1, name)
			}
		}
		if len(bodies) == 0 {
			return fmt.Errorf("trustee %d received nothing", i+1)
		}
		for _, b := range bodies {
			body, err := decodeBody(b)
			if err != nil {
				return fmt.Errorf("trustee %d received a body it cannot decode: %v", i+1, err)
			}
			for _, l := range body.lists {
				for _, x := range l {
					if whose, ok := others[key(x)]; ok {
						return fmt.Errorf("trustee %d received %s", i+1, whose)
					}
				}
			}
		}
	}
	return nil
}

// The view check finds a secret planted in a body.
func TestLeakFound(t *testing.T) {
	secret := func(base int64) secretsOf {
		b := func(k int64) *big.Int { return big.NewInt(base + k) }
		return secretsOf{p: b(1), q: b(2), m: b(3), d: b(4), share: b(5)}
	}
	all := []secretsOf{secret(100), secret(200)}
	clean, _ := flat(kindGamma, 2).encode(ints(7, 8))
	own, _ := flat(kindGamma, 2).encode(ints(7, 205)) // trustee 2's own s
	planted, _ := flat(kindGamma, 2).encode(ints(7, 204))
	if err := leak(all, [][][]byte{{clean}, {clean}}); err != nil {
		t.Fatalf("a clean view counted as a leak: %v", err)
	}
	if err := leak(all, [][][]byte{{clean}, {own}}); err != nil {
		t.Fatalf("a trustee's own secret counted as a leak: %v", err)
	}
	if err := leak(all, [][][]byte{{clean, planted}, {clean}}); err == nil || !strings.Contains(err.Error(), "trustee 1 received trustee 2's D") {
		t.Fatalf("got %v, want trustee 2's D found in trustee 1's view", err)
	}
}

// key is a map key of an integer's value.
func key(x *big.Int) string { return fmt.Sprint(x.Sign()) + string(x.Bytes()) }
