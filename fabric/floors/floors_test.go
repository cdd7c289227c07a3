package floors

import (
	"strings"
	"testing"
)

// listing is `go version -m` output for two binaries, trimmed: tabs as the
// go command prints them.
const listing = "bin/peer: go1.26.8\n" +
	"\tpath\tgithub.com/hyperledger/fabric/cmd/peer\n" +
	"\tmod\tgithub.com/hyperledger/fabric\t(devel)\t\n" +
	"\tdep\tgo.etcd.io/etcd/raft/v3\tv3.5.35\th1:x=\n" +
	"\tdep\tgolang.org/x/net\tv0.61.0\th1:x=\n" +
	"\tdep\tgoogle.golang.org/grpc\tv1.83.2\th1:x=\n" +
	"\tdep\tgoogle.golang.org/protobuf\tv1.36.12\th1:x=\n" +
	"\tbuild\t-compiler=gc\n" +
	"bin/fabvote: go1.26.8\n" +
	"\tpath\tgithub.com/fabvote/fabvote/cmd/fabvote\n" +
	"\tdep\tgoogle.golang.org/grpc\tv1.82.1\th1:x=\n"

func mustFloors(t *testing.T) []Floor {
	t.Helper()
	f, err := Floors()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestFloorsFileParses(t *testing.T) {
	want := map[string]string{"go": "1.26.6", "google.golang.org/grpc": "1.82.1",
		"golang.org/x/net": "0.23.0", "go.etcd.io/etcd/raft/v3": "3.5.9",
		"go.etcd.io/etcd/server/v3": "3.5.9", "go.etcd.io/etcd/client/pkg/v3": "3.5.9"}
	got := map[string]string{}
	for _, f := range mustFloors(t) {
		got[f.Module] = f.Version.String()
		if f.Advisories == "" {
			t.Errorf("%s: no advisory named", f.Module)
		}
	}
	for m, v := range want {
		if got[m] != v {
			t.Errorf("floor of %s = %q, want %q", m, got[m], v)
		}
	}
}

func TestCheckAcceptsAtOrAboveFloor(t *testing.T) {
	bins, err := ParseVersionM(listing)
	if err != nil {
		t.Fatal(err)
	}
	if len(bins) != 2 || bins[0].Path != "bin/peer" || bins[1].Modules["google.golang.org/grpc"] != "v1.82.1" {
		t.Fatalf("parsed %+v", bins)
	}
	if v := Check(bins, mustFloors(t)); len(v) != 0 {
		t.Fatalf("violations: %v", v)
	}
}

// One listing per way a binary can fall below a floor.
func TestCheckRejectsBelowFloor(t *testing.T) {
	cases := []struct{ name, old, new, module string }{
		{"grpc of 2.5.0", "google.golang.org/grpc\tv1.83.2", "google.golang.org/grpc\tv1.48.0", "google.golang.org/grpc"},
		{"grpc one patch short", "google.golang.org/grpc\tv1.83.2", "google.golang.org/grpc\tv1.82.0", "google.golang.org/grpc"},
		{"grpc pre-release of the floor", "google.golang.org/grpc\tv1.83.2", "google.golang.org/grpc\tv1.82.1-pre1", "google.golang.org/grpc"},
		{"x/net", "golang.org/x/net\tv0.61.0", "golang.org/x/net\tv0.7.0", "golang.org/x/net"},
		{"etcd raft", "raft/v3\tv3.5.35", "raft/v3\tv3.5.1", "go.etcd.io/etcd/raft/v3"},
		{"toolchain", "bin/peer: go1.26.8", "bin/peer: go1.26.5", "go"},
		{"unparseable version", "golang.org/x/net\tv0.61.0", "golang.org/x/net\tlatest", "golang.org/x/net"},
		{"older GODEBUG defaults (go line 1.20)", "\tbuild\t-compiler=gc\n", "\tbuild\t-compiler=gc\n\tbuild\tDefaultGODEBUG=tlsrsakex=1,x509sha1=1\n", GODEBUGModule},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bins, err := ParseVersionM(strings.Replace(listing, c.old, c.new, 1))
			if err != nil {
				t.Fatal(err)
			}
			v := Check(bins, mustFloors(t))
			if len(v) != 1 || v[0].Module != c.module || v[0].Binary != "bin/peer" {
				t.Fatalf("violations %v, want exactly %s in bin/peer", v, c.module)
			}
		})
	}
}

// A replaced module is checked at the version the binary links.
func TestCheckFollowsReplacements(t *testing.T) {
	replaced := strings.Replace(listing, "\tdep\tgoogle.golang.org/grpc\tv1.83.2\th1:x=\n",
		"\tdep\tgoogle.golang.org/grpc\tv1.83.2\n\t=>\tgoogle.golang.org/grpc\tv1.56.2\th1:y=\n", 1)
	bins, err := ParseVersionM(replaced)
	if err != nil {
		t.Fatal(err)
	}
	if v := Check(bins, mustFloors(t)); len(v) != 1 || v[0].Have != "v1.56.2" {
		t.Fatalf("violations %v, want grpc v1.56.2", v)
	}
}

func TestParseRejectsMalformedInput(t *testing.T) {
	for _, bad := range []string{"", "not a listing\n", "\tdep\tx\tv1.0.0\n"} {
		if _, err := ParseVersionM(bad); err == nil {
			t.Errorf("ParseVersionM(%q) accepted", bad)
		}
	}
	for _, bad := range []string{"", "# only a comment\n", "grpc v1.0.0\n", "grpc vX.1.0 CVE\n", "grpc 1 CVE\n"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestVersionOrder(t *testing.T) {
	order := []string{"v0.9.9", "v1.0.0-rc1", "v1.0.0", "1.0.1", "go1.26.5", "v1.26.6", "v1.27.0", "v2.0.0"}
	for i := 1; i < len(order); i++ {
		a, errA := ParseVersion(order[i-1])
		b, errB := ParseVersion(order[i])
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if !a.Less(b) || b.Less(a) {
			t.Errorf("%s should sort before %s", order[i-1], order[i])
		}
	}
	p, err := ParseVersion("v0.0.0-20260414002931-afd174a4e478")
	if err != nil || p.Pre == "" {
		t.Fatalf("pseudo-version: %+v %v", p, err)
	}
}

func FuzzParseVersionM(f *testing.F) {
	f.Add(listing)
	f.Add("x: go1\n\t=>\ta\tb\n")
	f.Fuzz(func(t *testing.T, s string) {
		bins, err := ParseVersionM(s)
		if err == nil && len(bins) == 0 {
			t.Fatal("no error and no binaries")
		}
		if err == nil {
			_ = Check(bins, mustFloors(t))
		}
	})
}
