package fabnet

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fabvote/fabvote/network/portplan"
)

// ProfileSpec is the shape of a named topology: its peer organisations, in
// the order of their slots in the port plan (the first is the election
// authority), and how many Raft orderers it runs. Everything else follows
// from Profile's rules: MSP ids, domains, ports, the channel, the batch
// settings.
type ProfileSpec struct {
	Name     string
	Orgs     []string
	Orderers int
}

// The shipped profiles: "solo-org" (the election authority and one
// orderer) and "three-orgs" (the authority, two parties, three orderers).
func init() {
	RegisterProfile(ProfileSpec{Name: "solo-org", Orgs: []string{"ea"}, Orderers: 1})
	RegisterProfile(ProfileSpec{Name: "three-orgs", Orgs: []string{"ea", "party1", "party2"}, Orderers: 3})
}

// profiles is the registry Profile and Profiles read.
var profiles = map[string]ProfileSpec{}

// RegisterProfile adds a named topology; a new profile is one call, from
// an init function of this package. It panics on a spec that is not valid
// or whose name is taken: a registration is the program's own data, and a
// wrong one must stop it before it starts anything.
func RegisterProfile(s ProfileSpec) {
	if err := s.check(); err != nil {
		panic("fabnet: RegisterProfile: " + err.Error())
	}
	if _, ok := profiles[s.Name]; ok {
		panic(fmt.Sprintf("fabnet: RegisterProfile: profile %q is registered twice", s.Name))
	}
	s.Orgs = slices.Clone(s.Orgs)
	profiles[s.Name] = s
}

// Profiles is the names of the registered profiles, sorted.
func Profiles() []string {
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LookupProfile returns the registered profile called name; the error for
// any other name lists the registered ones.
func LookupProfile(name string) (ProfileSpec, error) {
	s, ok := profiles[name]
	if !ok {
		return s, fmt.Errorf("profile %q: want one of %s", name, strings.Join(Profiles(), ", "))
	}
	s.Orgs = slices.Clone(s.Orgs)
	return s, nil
}

// check refuses a spec whose name or organisations could not name a
// directory or a DNS label, or that does not fit a stack of the port plan.
func (s ProfileSpec) check() error {
	if !labelRE.MatchString(s.Name) {
		return fmt.Errorf("profile %q: want lower-case letters, digits and '-'", s.Name)
	}
	if len(s.Orgs) == 0 || len(s.Orgs) > portplan.MaxPeerOrgs {
		return fmt.Errorf("profile %s: %d peer organisations, want 1 to %d (the port plan's slots)", s.Name, len(s.Orgs), portplan.MaxPeerOrgs)
	}
	if s.Orderers < 1 || s.Orderers > portplan.MaxOrderers {
		return fmt.Errorf("profile %s: %d orderers, want 1 to %d (the port plan's slots)", s.Name, s.Orderers, portplan.MaxOrderers)
	}
	seen := map[string]bool{ordererOrgName: true}
	for _, o := range s.Orgs {
		if !labelRE.MatchString(o) {
			return fmt.Errorf("profile %s: organisation %q is not a DNS label", s.Name, o)
		}
		if seen[o] {
			return fmt.Errorf("profile %s: organisation %q appears twice (or is the ordering organisation's name)", s.Name, o)
		}
		seen[o] = true
	}
	return nil
}

// largestShape is the shape a stack of the port plan reserves, whichever
// registered profile runs in it: the most peer organisations (with the
// names of the profile that has them) and the most orderers of any.
func largestShape() (ProfileSpec, error) {
	var shape ProfileSpec
	for _, n := range Profiles() {
		s := profiles[n]
		if len(s.Orgs) > len(shape.Orgs) {
			shape.Name, shape.Orgs = s.Name, s.Orgs
		}
		shape.Orderers = max(shape.Orderers, s.Orderers)
	}
	if len(shape.Orgs) == 0 {
		return shape, errors.New("no profile is registered")
	}
	return shape, nil
}
