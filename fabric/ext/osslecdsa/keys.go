package osslecdsa

import (
	"crypto/ecdsa"
	"errors"
	"sync"
)

// maxCachedKeys bounds each key cache. A peer verifies signatures of a few
// dozen identities (clients, peers, orderers); when a cache is full it is
// emptied, which costs one key construction per key afterwards.
const maxCachedKeys = 1024

// keyCache maps a key's identity to its OpenSSL object.
type keyCache[K comparable, V any] struct {
	mu sync.RWMutex
	m  map[K]V
}

func (c *keyCache[K, V]) get(k K) (V, bool) {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	return v, ok
}

func (c *keyCache[K, V]) put(k K, v V) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedKeys {
		c.m = make(map[K]V)
	}
	c.m[k] = v
	c.mu.Unlock()
}

func (c *keyCache[K, V]) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

var (
	// Public keys are cached by value (the 64 bytes of X and Y): Fabric
	// builds a new *ecdsa.PublicKey each time it parses a certificate.
	publicKeys keyCache[[64]byte, *ecKey]
	// Private keys are cached by pointer and checked against D: the signer's
	// key object lives as long as the BCCSP key that holds it.
	privateKeys keyCache[*ecdsa.PrivateKey, cachedPrivateKey]
)

type cachedPrivateKey struct {
	d   [32]byte
	key *ecKey
}

var errCoordinate = errors.New("osslecdsa: key coordinate out of range for P-256")

func point(pub *ecdsa.PublicKey) ([64]byte, error) {
	var p [64]byte
	if pub.X == nil || pub.Y == nil || pub.X.Sign() < 0 || pub.Y.Sign() < 0 ||
		pub.X.BitLen() > 256 || pub.Y.BitLen() > 256 {
		return p, errCoordinate
	}
	pub.X.FillBytes(p[:32])
	pub.Y.FillBytes(p[32:])
	return p, nil
}

func publicKey(pub *ecdsa.PublicKey) (*ecKey, error) {
	p, err := point(pub)
	if err != nil {
		return nil, err
	}
	if k, ok := publicKeys.get(p); ok {
		return k, nil
	}
	k, err := newECKey(p[:32], p[32:], nil)
	if err != nil {
		return nil, err
	}
	publicKeys.put(p, k)
	return k, nil
}

func privateKey(priv *ecdsa.PrivateKey) (*ecKey, error) {
	if priv.D == nil || priv.D.Sign() <= 0 || priv.D.BitLen() > 256 {
		return nil, errCoordinate
	}
	var d [32]byte
	priv.D.FillBytes(d[:])
	if c, ok := privateKeys.get(priv); ok && c.d == d {
		return c.key, nil
	}
	p, err := point(&priv.PublicKey)
	if err != nil {
		return nil, err
	}
	k, err := newECKey(p[:32], p[32:], d[:])
	if err != nil {
		return nil, err
	}
	privateKeys.put(priv, cachedPrivateKey{d: d, key: k})
	return k, nil
}
