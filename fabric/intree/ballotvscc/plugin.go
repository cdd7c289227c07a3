// Package ballotvscc is the fork's ballot validation plugin (O-IV), compiled
// into the peer (patch 0020 registers Factory as the handler library's
// BallotValidation). A chaincode definition that names it
// (--validation-plugin ballotvscc) gets, for each transaction, first
// everything Fabric's default validation checks (the builtin plugin runs
// unchanged), then the ballot check of package ballotcheck on what the
// transaction writes. The check of a block runs once, for all its
// transactions in the namespace, with every validity proof of the block in
// one batch; the validator goroutines that ask for other transactions of the
// same block wait for it and read their own verdict.
//
// A rejected transaction gets Fabric's ENDORSEMENT_POLICY_FAILURE code (the
// plugin API maps every plugin error to it) and the peer logs the reason
// with its fabvote code; a failure to read committed state fails the block's
// validation instead (ExecutionFailureError), because it says nothing about
// the transaction.
package ballotvscc

import (
	"errors"
	"fmt"
	"sync"

	"github.com/hyperledger/fabric-protos-go/common"
	"github.com/hyperledger/fabric/common/flogging"
	validation "github.com/hyperledger/fabric/core/handlers/validation/api"
	vs "github.com/hyperledger/fabric/core/handlers/validation/api/state"
	"github.com/hyperledger/fabric/core/handlers/validation/builtin"
	"github.com/hyperledger/fabric/fabvote/mod/election"
	"github.com/hyperledger/fabric/fabvote/mod/validation/ballotcheck"
)

var logger = flogging.MustGetLogger("fabvote.ballotvscc")

// Factory creates the plugin (one instance per channel).
type Factory struct{}

// New implements validation.PluginFactory.
func (Factory) New() validation.Plugin {
	return &Plugin{
		def:    (&builtin.DefaultValidationFactory{}).New(),
		jobs:   map[jobKey]*job{},
		caches: map[string]ballotcheck.Manifests{},
	}
}

// Plugin is the ballot validation plugin.
type Plugin struct {
	def validation.Plugin
	sf  vs.StateFetcher

	mu     sync.Mutex
	jobs   map[jobKey]*job
	caches map[string]ballotcheck.Manifests // by namespace
}

type jobKey struct {
	number uint64
	hash   string // the header's data hash: a re-delivered block is a new job
	ns     string
}

// job is the ballot check of one block's transactions in one namespace.
type job struct {
	once     sync.Once
	verdicts []error
}

// Init passes every dependency to the default plugin and keeps the state
// fetcher for manifest reads.
func (p *Plugin) Init(deps ...validation.Dependency) error {
	if err := p.def.Init(deps...); err != nil {
		return err
	}
	var sf vs.StateFetcher
	for _, d := range deps {
		if f, ok := d.(vs.StateFetcher); ok {
			sf = f
		}
	}
	if sf == nil {
		return errors.New("ballotvscc: no state fetcher passed in init")
	}
	p.sf = sf
	return nil
}

// Validate implements validation.Plugin.
func (p *Plugin) Validate(block *common.Block, ns string, txPosition, actionPosition int, contextData ...validation.ContextDatum) error {
	if err := p.def.Validate(block, ns, txPosition, actionPosition, contextData...); err != nil {
		return err
	}
	j := p.job(block, ns)
	j.once.Do(func() { j.verdicts = p.check(block, ns) })
	err := j.verdicts[txPosition]
	if err == nil {
		return nil
	}
	var se *ballotcheck.StateError
	if errors.As(err, &se) {
		return &validation.ExecutionFailureError{Reason: se.Error()}
	}
	msg := ballotcheck.Describe(fmt.Sprintf("%d:%d", block.Header.Number, txPosition), err)
	logger.Warning(msg)
	return errors.New(msg)
}

// job returns the block's job, dropping those of earlier blocks.
func (p *Plugin) job(block *common.Block, ns string) *job {
	k := jobKey{number: block.Header.Number, hash: string(block.Header.DataHash), ns: ns}
	p.mu.Lock()
	defer p.mu.Unlock()
	if j, ok := p.jobs[k]; ok {
		return j
	}
	for old := range p.jobs {
		if old.number < k.number {
			delete(p.jobs, old)
		}
	}
	j := &job{}
	p.jobs[k] = j
	return j
}

// check decodes every transaction of the block and checks those touching ns.
func (p *Plugin) check(block *common.Block, ns string) []error {
	txs := make([]*ballotcheck.Tx, len(block.Data.Data))
	decodeErrs := make([]error, len(txs))
	for i, env := range block.Data.Data {
		tx, err := decodeTx(env, ns)
		if err != nil {
			decodeErrs[i] = election.Errorf(election.CodeDecode, "transaction does not decode: %v", err)
			continue
		}
		txs[i] = tx
	}
	verdicts := ballotcheck.CheckBlock(nil, p.manifestsOf(ns), txs)
	for i, err := range decodeErrs {
		if err != nil {
			verdicts[i] = err
		}
	}
	return verdicts
}
