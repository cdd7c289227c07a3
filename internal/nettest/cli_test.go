package nettest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeFabvote writes a shell script that stands in for the fabvote binary:
// it appends its command line to calls.log in its working directory, makes
// `trustee keygen --out DIR` write DIR/recipient.txt, makes `ballot --out
// F` copy ballots (a ballot stream) to F, and makes `fail` print to both
// outputs and exit 3.
func fakeFabvote(t *testing.T, ballots []byte) string {
	t.Helper()
	dir := t.TempDir()
	stream := filepath.Join(dir, "stream.bin")
	if err := os.WriteFile(stream, ballots, 0o600); err != nil {
		t.Fatal(err)
	}
	script := `#!/bin/sh
echo "$*" >> calls.log
out=
prev=
for a in "$@"; do
	[ "$prev" = --out ] && out=$a
	prev=$a
done
case "$1 $2" in
"trustee keygen") mkdir -p "$out" && echo "age1$(basename "$out")" > "$out/recipient.txt" ;;
"ballot "*) cp ` + stream + ` "$out" ;;
"fail "*) echo "to stdout"; echo "fabvote: it failed" >&2; exit 3 ;;
esac
`
	bin := filepath.Join(dir, "fabvote")
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// calls is the fake's command lines so far, one a string.
func calls(t *testing.T, cli CLI) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(cli.Dir, "calls.log"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func TestCLIRun(t *testing.T) {
	cli := CLI{Bin: fakeFabvote(t, nil), Dir: t.TempDir()}
	if out, code := cli.Run(t, "ok", "arg"); code != 0 || out != "" {
		t.Fatalf("Run ok = %q, exit %d", out, code)
	}
	out, code := cli.Run(t, "fail", "now")
	if code != 3 || !strings.Contains(out, "to stdout") || !strings.Contains(out, "fabvote: it failed") {
		t.Fatalf("Run fail = %q, exit %d; want both outputs and exit 3", out, code)
	}
	if got, want := calls(t, cli), []string{"ok arg", "fail now"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("the fake ran %q, want %q in %s", got, want, cli.Dir)
	}
	msg := failure(t, func(tb testing.TB) { cli.Must(tb, "fail", "again") })
	if !strings.Contains(msg, "fabvote fail again: exit 3") || !strings.Contains(msg, "it failed") {
		t.Fatalf("Must of a failing command: failure %q, want the command, the exit code and the output", msg)
	}
	missing := CLI{Bin: filepath.Join(t.TempDir(), "no-such-fabvote"), Dir: cli.Dir}
	if msg := failure(t, func(tb testing.TB) { missing.Run(tb, "version") }); !strings.Contains(msg, "fabvote version:") {
		t.Fatalf("a missing binary: failure %q", msg)
	}
}

func TestCreateElectionAndBallots(t *testing.T) {
	recs := [][]byte{[]byte("ballot one"), []byte("ballot two")}
	cli := CLI{Bin: fakeFabvote(t, writeStream(t, recs...)), Dir: t.TempDir()}
	d := cli.Dir
	e := CreateElection(t, cli, "el-1", 12, "--channel", "fabvote")
	if e.ID != "el-1" || e.Dir != d {
		t.Fatalf("CreateElection = %+v, want election el-1 in %s", e, d)
	}
	rb, err := os.ReadFile(e.Path("trustee-recipients.txt"))
	if err != nil || string(rb) != "age1trustee-1\nage1trustee-2\nage1trustee-3\n" {
		t.Fatalf("recipients file %q (%v)", rb, err)
	}
	if got := e.GenerateBallots(t, cli, 2, "choices.txt"); !reflect.DeepEqual(got, recs) {
		t.Fatalf("GenerateBallots = %q, want the stream's %q", got, recs)
	}
	m := d + "/el/manifest.json"
	want := []string{
		"trustee keygen --out " + d + "/trustees/trustee-1",
		"trustee keygen --out " + d + "/trustees/trustee-2",
		"trustee keygen --out " + d + "/trustees/trustee-3",
		"election create --election el-1 --candidates Alice,Bob,Carol,Dave --max-voters 12 --trustees 3 --threshold 2 " +
			"--trustee-recipients " + d + "/trustee-recipients.txt --out el --max-clock-skew 2s --channel fabvote",
		"register --offline --manifest " + m + " --voters 2 --ea-key " + d + "/el/ea.key --out " + d + "/voters.jsonl",
		"ballot --bulk --manifest " + m + " --voters-file " + d + "/voters.jsonl --choices choices.txt --out " + d + "/ballots.bin --quiet",
	}
	if got := calls(t, cli); !reflect.DeepEqual(got, want) {
		t.Fatalf("command lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Without a choices file the generator chooses; a short stream fails.
	msg := failure(t, func(tb testing.TB) { e.GenerateBallots(tb, cli, 3, "") })
	if !strings.Contains(msg, "wrote 2 ballots, want 3") {
		t.Fatalf("a stream with fewer ballots than voters: failure %q", msg)
	}
	if got := calls(t, cli); strings.Contains(got[len(got)-1], "--choices") {
		t.Fatalf("ballot --bulk without a choices file: %s", got[len(got)-1])
	}
}

func TestElectionLayout(t *testing.T) {
	e := Election{ID: "x", Dir: "/d"}
	for got, want := range map[string]string{
		e.Manifest():     "/d/el/manifest.json",
		e.EAKey():        "/d/el/ea.key",
		e.PseudonymKey(): "/d/el/pseudonym.key",
		e.Share(2):       "/d/el/trustee-2.share.age",
		e.Identity(3):    "/d/trustees/trustee-3/identity.txt",
	} {
		if got != want {
			t.Errorf("path %s, want %s", got, want)
		}
	}
}
