package modulus

import (
	"math/big"
	"reflect"
	"testing"
)

// checkViews asserts that no trustee was handed, or keeps in its state,
// another trustee's share of p, q or m, or p, q, m or φ(N) themselves: the
// values in its messages (N and the biprimality values of every candidate,
// in views[id]) and every integer reachable from its Trustee.
func checkViews(t *testing.T, res *Result, views [][]*big.Int) {
	t.Helper()
	p, q, m := reconstruct(t, res)
	phi := new(big.Int).Lsh(m, 2)
	for _, tr := range res.Trustees {
		own, err := tr.Share()
		if err != nil {
			t.Fatal(err)
		}
		secrets := []*big.Int{p, q, m, phi}
		for _, other := range res.Trustees {
			if other != tr {
				sh, _ := other.Share()
				secrets = append(secrets, sh.P, sh.Q, sh.M)
			}
		}
		state := reachable(reflect.ValueOf(tr), map[uintptr]bool{})
		if len(views[tr.ID()]) == 0 || !holds(state, own.P) || !holds(state, own.M) {
			t.Fatalf("trustee %d's view or state misses what it must hold", tr.ID())
		}
		for _, s := range secrets {
			if holds(views[tr.ID()], s) || holds(state, s) {
				t.Fatalf("trustee %d sees a secret that is not its own", tr.ID())
			}
		}
	}
}

func holds(xs []*big.Int, v *big.Int) bool {
	for _, x := range xs {
		if x.Cmp(v) == 0 {
			return true
		}
	}
	return false
}

var bigIntType = reflect.TypeFor[*big.Int]()

// reachable returns every *big.Int reachable from v through pointers,
// structs, slices, arrays and maps, unexported fields included.
func reachable(v reflect.Value, seen map[uintptr]bool) []*big.Int {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return nil
		}
		seen[v.Pointer()] = true
		if v.Type() == bigIntType {
			return []*big.Int{(*big.Int)(v.UnsafePointer())}
		}
		return reachable(v.Elem(), seen)
	case reflect.Interface:
		return reachable(v.Elem(), seen)
	case reflect.Struct:
		var out []*big.Int
		for i := range v.NumField() {
			out = append(out, reachable(v.Field(i), seen)...)
		}
		return out
	case reflect.Slice, reflect.Array:
		var out []*big.Int
		for i := range v.Len() {
			out = append(out, reachable(v.Index(i), seen)...)
		}
		return out
	case reflect.Map:
		var out []*big.Int
		for it := v.MapRange(); it.Next(); {
			out = append(out, reachable(it.Key(), seen)...)
			out = append(out, reachable(it.Value(), seen)...)
		}
		return out
	}
	return nil
}
