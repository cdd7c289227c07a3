package ballotvscc

import (
	vs "github.com/hyperledger/fabric/core/handlers/validation/api/state"
	"github.com/hyperledger/fabric/fabvote/mod/validation/ballotcheck"
)

// manifestsOf returns the manifest cache of namespace ns: a channel's
// plugin instance serves every chaincode whose definition names it, and each
// reads manifests from its own namespace.
func (p *Plugin) manifestsOf(ns string) ballotcheck.Manifests {
	p.mu.Lock()
	defer p.mu.Unlock()
	m, ok := p.caches[ns]
	if !ok {
		sf := p.sf
		m = ballotcheck.ManifestCache(func(key string) ([]byte, error) { return fetch(sf, ns, key) })
		p.caches[ns] = m
	}
	return m
}

// fetch reads one key of committed state.
func fetch(sf vs.StateFetcher, ns, key string) ([]byte, error) {
	st, err := sf.FetchState()
	if err != nil {
		return nil, err
	}
	defer st.Done()
	vals, err := st.GetStateMultipleKeys(ns, []string{key})
	if err != nil {
		return nil, err
	}
	if len(vals) != 1 {
		return nil, nil
	}
	return vals[0], nil
}
