// Package benchprobe measures the machine a benchmark runs on, so that a
// trial's figures can be read against the machine's state at the time: the
// time of a fixed exponentiation mod N² (the ballot proofs' arithmetic, on
// the backend the build uses) and of a fixed P-256 verification (the
// signatures'), and the CPU time the hypervisor stole from this machine.
// A benchmark probes before and after each trial; a trial during which the
// machine slowed shows it in both, and its figures can be normalised by the
// probe (bench/report/report.py).
package benchprobe

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/fabvote/fabvote/crypto/paillier/arith"
)

// Result is one probe.
type Result struct {
	Time      time.Time `json:"time"`
	ExpNs     float64   `json:"expNsPerOp"`    // one 2048-bit exponent mod a 4096-bit modulus
	VerifyNs  float64   `json:"verifyNsPerOp"` // one ECDSA P-256 verification
	ExpOps    int       `json:"expOps"`
	VerifyOps int       `json:"verifyOps"`
	// StealTicks is /proc/stat's steal time of all CPUs since boot, in
	// USER_HZ ticks (100 a second on Linux); 0 where there is no /proc/stat.
	StealTicks uint64 `json:"stealTicks"`
}

// Run times expOps exponentiations and verifyOps verifications, each on
// fixed inputs, one after the other on one goroutine.
func Run(expOps, verifyOps int) (*Result, error) {
	if expOps < 1 || verifyOps < 1 {
		return nil, fmt.Errorf("benchprobe: %d exponentiations and %d verifications, want at least 1 of each", expOps, verifyOps)
	}
	r := &Result{Time: time.Now().UTC(), ExpOps: expOps, VerifyOps: verifyOps}
	base, exp, mod := expInputs()
	start := time.Now()
	for i := 0; i < expOps; i++ {
		arith.Exp(base, exp, mod)
	}
	r.ExpNs = float64(time.Since(start).Nanoseconds()) / float64(expOps)
	ns, err := timeVerify(verifyOps)
	if err != nil {
		return nil, err
	}
	r.VerifyNs = ns
	if r.StealTicks, err = readSteal("/proc/stat"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return r, nil
}

// expInputs are a fixed odd 4096-bit modulus and a 2048-bit base and
// exponent, from SHA-256 in counter mode: the same work on every machine.
func expInputs() (base, exp, mod *big.Int) {
	stream := func(label string, bytes int) *big.Int {
		var out []byte
		for i := 0; len(out) < bytes; i++ {
			h := sha256.Sum256([]byte(fmt.Sprintf("fabvote/benchprobe/v1/%s/%d", label, i)))
			out = append(out, h[:]...)
		}
		return new(big.Int).SetBytes(out[:bytes])
	}
	mod = stream("modulus", 512)
	mod.SetBit(mod, 4095, 1).SetBit(mod, 0, 1)
	return stream("base", 256), stream("exponent", 256), mod
}

// timeVerify returns the time of one P-256 verification, over ops
// verifications of one signature (the cost does not depend on the key).
func timeVerify(ops int) (float64, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return 0, err
	}
	digest := sha256.Sum256([]byte("fabvote/benchprobe/v1/message"))
	sig, err := ecdsa.SignASN1(rand.Reader, key, digest[:])
	if err != nil {
		return 0, err
	}
	start := time.Now()
	for i := 0; i < ops; i++ {
		if !ecdsa.VerifyASN1(&key.PublicKey, digest[:], sig) {
			return 0, errors.New("benchprobe: the probe's own signature does not verify")
		}
	}
	return float64(time.Since(start).Nanoseconds()) / float64(ops), nil
}

// readSteal returns the steal time of all CPUs from a /proc/stat file: the
// eighth value of its "cpu" line.
func readSteal(path string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseSteal(f)
}

func parseSteal(r io.Reader) (uint64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || fields[0] != "cpu" {
			continue
		}
		if len(fields) < 9 {
			return 0, fmt.Errorf("benchprobe: /proc/stat's cpu line has %d values, want at least 8", len(fields)-1)
		}
		return strconv.ParseUint(fields[8], 10, 64)
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("benchprobe: /proc/stat has no cpu line")
}
