package lockless

import (
	"sort"
	"sync"
)

// The registry lets a process publish the counters of its gates (one per
// channel ledger) without this package knowing how they are exported: the
// peer's transaction manager registers its gate under the channel name, and
// a metrics adapter in the peer (fabric/patches/0007) walks the registry with
// Collect on every scrape. Keeping the adapter outside keeps this package
// free of Fabric and Prometheus imports.
var registry struct {
	mu    sync.Mutex
	gates map[string]*Gate
}

// Register publishes g's counters under channel, replacing any gate
// registered under that name before (a ledger reopened in the same process
// has a new gate, whose counters start again from zero).
func Register(channel string, g *Gate) {
	if g == nil {
		return
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.gates == nil {
		registry.gates = make(map[string]*Gate)
	}
	registry.gates[channel] = g
}

// Unregister removes channel's entry if it is g, and returns g's final
// counters. It leaves a newer gate registered under the same name alone, so
// that closing an old ledger cannot hide the counters of its replacement.
func Unregister(channel string, g *Gate) Stats {
	if g == nil {
		return Stats{}
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.gates[channel] == g {
		delete(registry.gates, channel)
	}
	return g.Stats()
}

// Collect calls fn with the counters of every registered gate, in channel
// name order. fn runs after the registry's lock is released, so it may call
// Register or Unregister.
func Collect(fn func(channel string, s Stats)) {
	type entry struct {
		channel string
		gate    *Gate
	}
	registry.mu.Lock()
	entries := make([]entry, 0, len(registry.gates))
	for ch, g := range registry.gates {
		entries = append(entries, entry{ch, g})
	}
	registry.mu.Unlock()
	sort.Slice(entries, func(i, j int) bool { return entries[i].channel < entries[j].channel })
	for _, e := range entries {
		fn(e.channel, e.gate.Stats())
	}
}
