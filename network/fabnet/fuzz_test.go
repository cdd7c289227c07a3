package fabnet

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzLoad feeds arbitrary files to Load: it must never panic, and a
// topology it accepts must pass Check and come back unchanged through
// Save and Load.
func FuzzLoad(f *testing.F) {
	seed := func(top *Topology, err error) {
		if err != nil {
			f.Fatal(err)
		}
		b, err := json.Marshal(top)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	seed(Profile("three-orgs", 7050, map[string]string{"orderer": "10.0.0.10", "party1": "party1.example.org"},
		[]Chaincode{{Name: "ballot", Version: "1.0", Ballot: true, ValidationPlugin: "vscc-ballot"}, {Name: "registry", Version: "1.0"}}))
	seed(Profile("solo-org", 20000, nil, nil))
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"channel":"fabvote","batch":{"maxMessageCount":1,"timeout":"1s"},` +
		`"ordererOrg":{"name":"o","mspID":"O","domain":"o.x","host":"::1","caPort":1,"orderers":[{"name":"o0","port":10,"adminPort":11,"opsPort":12}]},` +
		`"orgs":[{"name":"a","mspID":"A","domain":"a.x","host":"::1","caPort":20,"peer":{"name":"p","port":30,"chaincodePort":31,"opsPort":32,"services":[]}}],` +
		`"chaincodes":[]}`))
	f.Add([]byte(`{"channel":"fabvote","orgs":[{"peer":{"services":[{"port":-1}]}}]}`))

	// One directory for every input: the fuzz function runs one input at
	// a time in each process, and a fresh t.TempDir per input would cost
	// more than Load itself.
	dir := fuzzDir(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "in.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		top, err := Load(path)
		if err != nil {
			if top != nil {
				t.Fatalf("Load returned a topology with its error %v", err)
			}
			return
		}
		if err := top.Check(); err != nil {
			t.Fatalf("Load accepted a topology that fails Check: %v", err)
		}
		out := filepath.Join(dir, "out.json")
		if err := top.Save(out); err != nil {
			t.Fatalf("Save: %v", err)
		}
		again, err := Load(out)
		if err != nil {
			t.Fatalf("Load of what Save wrote: %v", err)
		}
		if !reflect.DeepEqual(top, again) {
			t.Fatalf("Save+Load changed the topology:\n%+v\n%+v", top, again)
		}
		// Every peer org Load accepts can be found by name.
		for _, o := range top.Orgs {
			if p, err := top.PeerOrg(o.Name); err != nil || p.Name != o.Name {
				t.Fatalf("PeerOrg(%q) = %v, %v", o.Name, p, err)
			}
		}
	})
}

// fuzzDir is where FuzzLoad writes its files. Save syncs what it writes,
// which costs milliseconds per input on a disk and starves the fuzzer
// (minimising an input alone can take its whole -fuzztime); a RAM-backed
// /dev/shm makes the sync free, so it is used when there is one.
func fuzzDir(f *testing.F) string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "fabnet-fuzz-"); err == nil {
			f.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return f.TempDir()
}
