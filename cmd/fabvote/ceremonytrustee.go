package main

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"filippo.io/age"
	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/crypto/dkg/modulus"
	"github.com/fabvote/fabvote/crypto/dkg/protocol"
	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/ceremony/config"
	"github.com/fabvote/fabvote/internal/ceremony/envelope"
	"github.com/fabvote/fabvote/internal/cli"
	"github.com/fabvote/fabvote/internal/keyfile"
	"github.com/fabvote/fabvote/internal/sharebox"
)

// trusteeShareFile is the name of a trustee's own sealed share in its
// ceremony --out directory.
const trusteeShareFile = "share.age"

// trusteeCeremonyOptions are the flags of `trustee ceremony`.
type trusteeCeremonyOptions struct {
	configPath, digest, identity, out, evidence string
	batch                                       int
	timeout                                     time.Duration
}

func cmdTrusteeCeremony(fs *pflag.FlagSet) func() error {
	var o trusteeCeremonyOptions
	fs.StringVar(&o.configPath, "config", "", "the ceremony's configuration (from fabvote ceremony config)")
	fs.StringVar(&o.digest, "expect-digest", "", "the configuration's digest as the trustees compared it out of band (hex): any other configuration is refused")
	fs.StringVar(&o.identity, "identity", "", "your directory from fabvote trustee keygen ("+sharebox.IdentityFile+", "+keyfile.SigningKeyFile+")")
	fs.StringVar(&o.out, "out", "", "directory for your sealed share ("+trusteeShareFile+") and the public result ("+ceremonyResultFile+"); created, or empty")
	fs.StringVar(&o.evidence, "evidence", ".", "directory where a trustee's equivocation (two signed messages) is written as proof")
	fs.IntVar(&o.batch, "batch", 256, fmt.Sprintf("candidate pairs sieved per round trip, 1..%d: more means fewer rounds and larger messages", protocol.MaxBatch))
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long to wait for the other trustees in each round")
	return func() error {
		if err := cli.Required(fs, "config", "expect-digest", "identity", "out"); err != nil {
			return err
		}
		if o.batch < 1 || o.batch > protocol.MaxBatch {
			return cli.Usagef("--batch %d: want 1..%d", o.batch, protocol.MaxBatch)
		}
		if o.timeout <= 0 {
			return cli.Usagef("--timeout %s: want a positive duration", o.timeout)
		}
		ctx, stop := signalContext()
		defer stop()
		return o.run(ctx)
	}
}

// trusteeKeys are a trustee's secrets from keygen and its place in the
// ceremony.
type trusteeKeys struct {
	me     int
	signer ed25519.PrivateKey
	ids    []age.Identity
	self   age.Recipient
}

// run checks everything it can before the ceremony, runs it and writes
// the results.
func (o *trusteeCeremonyOptions) run(ctx context.Context) error {
	cfg, err := readCeremonyConfig(o.configPath, o.digest)
	if err != nil {
		return err
	}
	keys, err := readTrusteeKeys(cfg, o.identity)
	if err != nil {
		return err
	}
	if err := checkEmptyOut(o.out); err != nil {
		return err
	}
	t, err := newRelayTransport(cfg, keys.me, keys.signer, keys.ids, o.timeout)
	if err != nil {
		return err
	}
	me, _ := cfg.Trustee(keys.me)
	fmt.Fprintf(os.Stderr, "ceremony %s: %s of %d, %d-of-%d, %d-bit N, through %s\n", cfg.Ceremony, me, cfg.N, cfg.K, cfg.N, cfg.Bits, cfg.Relay)
	id := cfg.ID()
	pcfg := protocol.Config{Trustees: cfg.N, K: cfg.K, Bits: cfg.Bits, Ceremony: id[:], Batch: o.batch}
	out, err := protocol.Run(ctx, pcfg, keys.me, t, nil)
	if err != nil {
		return o.failed(err)
	}
	defer out.Share.Wipe()
	if err := writeCeremonyOut(o.out, cfg, out, keys.self); err != nil {
		return err
	}
	printCeremonyStats(cfg, out)
	return nil
}

// readCeremonyConfig reads the configuration and refuses it unless its
// digest is the one the trustees compared.
func readCeremonyConfig(path, digest string) (*config.Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	cfg, err := config.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("--config %s: %w", path, err)
	}
	if err := cfg.CheckDigest(digest); err != nil {
		return nil, fmt.Errorf("--config %s: %w", path, err)
	}
	return cfg, nil
}

// readTrusteeKeys reads the trustee's keys from dir and finds its index
// in cfg by its signing key; its age identity must be the one cfg lists.
func readTrusteeKeys(cfg *config.Config, dir string) (*trusteeKeys, error) {
	signer, err := keyfile.ReadSigningKey(filepath.Join(dir, keyfile.SigningKeyFile))
	if err != nil {
		return nil, fmt.Errorf("--identity: %w", err)
	}
	ids, err := sharebox.ReadIdentityFile(filepath.Join(dir, sharebox.IdentityFile))
	if err != nil {
		return nil, fmt.Errorf("--identity: %w", err)
	}
	pub := signer.Public().(ed25519.PublicKey)
	for _, t := range cfg.Trustees {
		if !t.PublicKey().Equal(pub) {
			continue
		}
		for _, id := range ids {
			if x, ok := id.(*age.X25519Identity); ok && x.Recipient().String() == t.AgeRecipient {
				return &trusteeKeys{me: t.Index, signer: signer, ids: ids, self: x.Recipient()}, nil
			}
		}
		return nil, fmt.Errorf("--identity %s: the configuration lists %s with another age recipient than %s's: private messages to it would not open", dir, t, sharebox.IdentityFile)
	}
	return nil, fmt.Errorf("--identity %s: signing key %s (%s) is not a trustee's of ceremony %s", dir, keyfile.SigningKeyFingerprint(pub), base64.StdEncoding.EncodeToString(pub), cfg.Ceremony)
}

// checkEmptyOut refuses an --out that holds anything.
func checkEmptyOut(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("--out: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("--out %s is not empty: a ceremony writes into an empty directory", dir)
	}
	return nil
}

// failed reports a failed ceremony; an equivocation's two signed messages
// are written to --evidence.
func (o *trusteeCeremonyOptions) failed(err error) error {
	var eq *envelope.EquivocationError
	if !errors.As(err, &eq) {
		return fmt.Errorf("the ceremony failed: %w", err)
	}
	path := filepath.Join(o.evidence, fmt.Sprintf("equivocation-trustee-%d-seq-%d.json", eq.From, eq.Seq))
	b, _ := json.MarshalIndent(map[string]any{"trustee": eq.From, "name": eq.Name, "seq": eq.Seq, "messages": eq.Evidence()}, "", "  ")
	if werr := atomicfile.WriteFile(path, append(b, '\n'), 0o644); werr != nil {
		return fmt.Errorf("the ceremony failed: %w (writing the evidence: %v)", err, werr)
	}
	return fmt.Errorf("the ceremony failed: %w; the two signed messages are in %s", err, path)
}

// writeCeremonyOut writes the trustee's share, sealed to its own
// recipient, and the public result into dir, both or neither.
func writeCeremonyOut(dir string, cfg *config.Config, out *protocol.Output, self age.Recipient) error {
	res, err := newCeremonyResult(out, cfg.DigestHex())
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	sharePath := filepath.Join(dir, trusteeShareFile)
	if err := sharebox.WriteSealed(sharePath, out.Share, self); err != nil {
		return fmt.Errorf("writing %s: %w", sharePath, err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, ceremonyResultFile), append(b, '\n'), 0o644); err != nil {
		os.Remove(sharePath)
		return err
	}
	return nil
}

// printCeremonyStats prints the result and the work against its
// expectation.
func printCeremonyStats(cfg *config.Config, out *protocol.Output) {
	s := out.Stats
	fmt.Printf("ceremony %s done: N of %d bits, your share as trustee %d of %d (%d needed to decrypt)\n",
		cfg.Ceremony, out.Public.Params.PublicKey.N.BitLen(), out.Share.Index, cfg.N, cfg.K)
	id := cfg.ID()
	if p, err := modulus.NewParams(cfg.N, cfg.Bits, id[:]); err == nil {
		e := p.Expect()
		fmt.Printf("  candidates sieved: %d (expected %.0f), biprimality tests: %d (expected %.1f)\n", s.Candidates, e.Candidates, s.BiprimalityTests, e.BiprimalityTests)
	}
	fmt.Printf("  trial division rejected %d; batches: %d, rounds: %d, sent %d bytes, received %d bytes, in %s\n",
		s.TrialDivisionRejects, s.Batches, s.Rounds, s.BytesSent, s.BytesReceived, s.Duration.Round(time.Millisecond))
}
