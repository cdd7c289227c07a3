package ballot

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fabvote/fabvote/election"
)

// Environment variables read by ConfigFromEnv.
const (
	// EnvProofBatch selects the proof verifier: "off" (or "0", "1") checks
	// each proof on its own; a number n ≥ 2 batches the proofs of up to n
	// concurrent ballots.
	// Default DefaultBatchMax.
	EnvProofBatch = "FABVOTE_PROOF_BATCH"
	// EnvProofBatchWait bounds how long a batch waits to fill while no other
	// batch is being verified (Go duration, e.g. "2ms"; "0" starts at once).
	// While one is, a batch keeps filling until that verification ends or it
	// is full, whatever this says (Batcher). Default DefaultBatchWait.
	// chaincode/README.md has measurements and tuning advice.
	EnvProofBatchWait = "FABVOTE_PROOF_BATCH_WAIT"
	// EnvMaxClockSkew bounds |tx timestamp − peer clock| (Go duration; "off"
	// or "0" disables the check). Default DefaultMaxClockSkew.
	EnvMaxClockSkew = "FABVOTE_MAX_CLOCK_SKEW"
	// EnvAuthorityMSPs, if set, is a comma-separated list of the only MSP ids
	// that may open elections (as the manifest's authority). Unset: any MSP
	// may open a new election id naming itself as the authority.
	EnvAuthorityMSPs = "FABVOTE_AUTHORITY_MSPS"
	// EnvValidationPlugin names the validation plugin of the chaincode's
	// definition (O-IV). "ballotvscc" (ValidationPluginBallot): every peer
	// checks each ballot's validity proof at validation, so CastBallot at
	// endorsement decodes the proof but leaves its verification to them.
	// Unset, "vscc" or "off": the definition uses Fabric's default plugin
	// and CastBallot checks everything. The network tool sets the variable
	// and the definition's --validation-plugin together.
	EnvValidationPlugin = "FABVOTE_VALIDATION_PLUGIN"
	// ValidationPluginBallot is the fork's ballot validation plugin.
	ValidationPluginBallot = "ballotvscc"
)

// Defaults.
const (
	DefaultBatchMax     = 64
	DefaultBatchWait    = 2 * time.Millisecond
	DefaultMaxClockSkew = 5 * time.Minute
	MaxPageSize         = 1000
)

// Config configures the contract.
type Config struct {
	// Verifier checks validity proofs; nil means election.DirectVerifier.
	Verifier election.ProofVerifier
	// MaxClockSkew: reject transactions whose timestamp is further than this
	// from Now (0 disables). Fabric does not validate the client-chosen
	// timestamp; this bounds how far a client can move a ballot in time.
	MaxClockSkew time.Duration
	// AuthorityMSPs, if not empty, lists the MSP ids allowed to open elections.
	AuthorityMSPs []string
	// Now is the peer's clock (time.Now if nil).
	Now func() time.Time
	// ProofAtValidation: the chaincode definition names the ballot
	// validation plugin, which verifies every ballot's proof at commit, so
	// endorsement only decodes it (EnvValidationPlugin). Never set it for a
	// definition with the default plugin: nothing would check the proofs.
	ProofAtValidation bool
}

// DefaultConfig is the configuration with no environment: batching with
// DefaultBatchMax and DefaultBatchWait, skew DefaultMaxClockSkew.
func DefaultConfig() Config {
	return Config{
		Verifier:     NewBatcher(DefaultBatchMax, DefaultBatchWait),
		MaxClockSkew: DefaultMaxClockSkew,
	}
}

// ConfigFromEnv builds the configuration from the FABVOTE_* variables;
// lookup is os.LookupEnv in production. Invalid values are errors (a
// misconfigured chaincode should not start), naming the variable.
func ConfigFromEnv(lookup func(string) (string, bool)) (Config, error) {
	cfg := DefaultConfig()
	batchMax, wait := DefaultBatchMax, DefaultBatchWait
	if v, ok := lookup(EnvProofBatch); ok && strings.TrimSpace(v) != "" {
		v = strings.TrimSpace(v)
		if strings.EqualFold(v, "off") {
			batchMax = 1
		} else {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 4096 {
				return Config{}, fmt.Errorf("%s=%q: want \"off\" or a batch size 0..4096", EnvProofBatch, v)
			}
			batchMax = n
		}
	}
	if v, ok := lookup(EnvProofBatchWait); ok && strings.TrimSpace(v) != "" {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d < 0 || d > time.Second {
			return Config{}, fmt.Errorf("%s=%q: want a duration between 0 and 1s", EnvProofBatchWait, v)
		}
		wait = d
	}
	if batchMax <= 1 {
		cfg.Verifier = election.DirectVerifier{}
	} else {
		cfg.Verifier = NewBatcher(batchMax, wait)
	}
	if v, ok := lookup(EnvMaxClockSkew); ok && strings.TrimSpace(v) != "" {
		v = strings.TrimSpace(v)
		if strings.EqualFold(v, "off") || v == "0" {
			cfg.MaxClockSkew = 0
		} else {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return Config{}, fmt.Errorf("%s=%q: want a positive duration or \"off\"", EnvMaxClockSkew, v)
			}
			cfg.MaxClockSkew = d
		}
	}
	if v, ok := lookup(EnvValidationPlugin); ok {
		switch v = strings.TrimSpace(v); v {
		case "", "off", "vscc":
		case ValidationPluginBallot:
			cfg.ProofAtValidation = true
		default:
			return Config{}, fmt.Errorf("%s=%q: want %q, \"vscc\" or \"off\"", EnvValidationPlugin, v, ValidationPluginBallot)
		}
	}
	if v, ok := lookup(EnvAuthorityMSPs); ok && strings.TrimSpace(v) != "" {
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" {
				cfg.AuthorityMSPs = append(cfg.AuthorityMSPs, id)
			}
		}
	}
	return cfg, nil
}

// String describes the configuration for the chaincode's start-up log line.
func (c Config) String() string {
	v := "direct"
	if b, ok := c.Verifier.(*Batcher); ok {
		v = fmt.Sprintf("batched (up to %d, wait %s)", b.max, b.wait)
	}
	skew := "off"
	if c.MaxClockSkew > 0 {
		skew = c.MaxClockSkew.String()
	}
	auth := "any MSP (the manifest's authority)"
	if len(c.AuthorityMSPs) > 0 {
		auth = strings.Join(c.AuthorityMSPs, ",")
	}
	if c.ProofAtValidation {
		v = "at validation by every peer (" + ValidationPluginBallot + "), decoding only at endorsement"
	}
	return fmt.Sprintf("proof verification %s; max clock skew %s; elections opened by %s", v, skew, auth)
}
