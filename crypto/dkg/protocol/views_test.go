package protocol

import (
	"fmt"
	"math/big"
	"reflect"
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

// checkViews requires that no trustee received, in any body, another
// trustee's p_j, q_j, m_j, D_j or s_j, and that each received bodies.
func checkViews(t *testing.T, all []secretsOf, recorders []*recorder) {
	t.Helper()
	for i, rec := range recorders {
		var view []*big.Int
		for _, b := range rec.bodies {
			body, err := decodeBody(b)
			if err != nil {
				t.Fatalf("trustee %d received a body it cannot decode: %v", i+1, err)
			}
			for _, l := range body.lists {
				view = append(view, l...)
			}
		}
		if len(view) == 0 {
			t.Fatalf("trustee %d received nothing", i+1)
		}
		others := map[string]string{} // key(secret) → whose and which
		for j, s := range all {
			if j == i {
				continue
			}
			if s.p == nil {
				t.Fatalf("trustee %d revealed nothing", j+1)
			}
			for name, v := range map[string]*big.Int{"p": s.p, "q": s.q, "m": s.m, "D": s.d, "s": s.share} {
				others[key(v)] = fmt.Sprintf("trustee %d's %s", j+1, name)
			}
		}
		for _, x := range view {
			if whose, ok := others[key(x)]; ok {
				t.Fatalf("trustee %d received %s", i+1, whose)
			}
		}
	}
}

// key is a map key of an integer's value.
func key(x *big.Int) string { return fmt.Sprint(x.Sign()) + string(x.Bytes()) }
