package nettest

import (
	"bytes"
	"crypto/elliptic"
	"testing"
	"time"
)

func TestVoterKey(t *testing.T) {
	k1, pub1 := VoterKey(t)
	k2, pub2 := VoterKey(t)
	if k1.Curve != elliptic.P256() {
		t.Fatalf("voter key on %s, want P-256", k1.Curve.Params().Name)
	}
	if want, _ := k1.PublicKey.Bytes(); !bytes.Equal(pub1, want) {
		t.Fatal("the returned public key is not the key's")
	}
	if k1.Equal(k2) || bytes.Equal(pub1, pub2) {
		t.Fatal("two voter keys are the same")
	}
}

func TestContext(t *testing.T) {
	c := Context(t, time.Minute)
	deadline, ok := c.Deadline()
	if !ok || time.Until(deadline) > time.Minute || time.Until(deadline) < 50*time.Second {
		t.Fatalf("deadline %v (%v), want about a minute from now", deadline, ok)
	}
	var ended <-chan struct{}
	t.Run("ends with its test", func(t *testing.T) { ended = Context(t, time.Hour).Done() })
	select {
	case <-ended:
	default:
		t.Fatal("a test's context is still live after the test ended")
	}
}
