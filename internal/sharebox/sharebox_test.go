package sharebox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"

	"github.com/fabvote/fabvote/election/electiontest"
)

func newIdentity(t *testing.T) *age.X25519Identity {
	t.Helper()
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestParseRecipients(t *testing.T) {
	a, b := newIdentity(t).Recipient().String(), newIdentity(t).Recipient().String()
	tests := []struct {
		name, in string
		want     int
		errPart  string
	}{
		{"two, with comments and blanks", "# trustees\n" + a + "\n\n  " + b + "  \n", 2, ""},
		{"too few", a + "\n", 2, "1 recipients for 2 trustees"},
		{"too many", a + "\n" + b + "\n", 1, "2 recipients for 1 trustees"},
		{"one twice", a + "\n" + a + "\n", 2, "trustee 1 again"},
		{"not a recipient", a + "\nssh-ed25519 AAAA\n", 2, "line 2"},
		{"an identity instead", strings.ToUpper(newIdentity(t).String()) + "\n", 1, "line 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := ParseRecipients(strings.NewReader(tc.in), tc.want)
			if tc.errPart == "" {
				if err != nil || len(rs) != tc.want {
					t.Fatalf("got %d, %v; want %d", len(rs), err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.errPart) {
				t.Fatalf("err = %v, want one containing %q", err, tc.errPart)
			}
		})
	}
}

// A sealed share opens with its own identity only, and carries no
// plaintext copy of the secret.
func TestSealOpen(t *testing.T) {
	_, _, shares := electiontest.Load().ThresholdManifest("box", 2, 3)
	mine, other := newIdentity(t), newIdentity(t)
	sealed, err := Seal(shares[1], mine.Recipient())
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := shares[1].MarshalBinary()
	if strings.Contains(string(sealed), string(plain[len(plain)-32:])) {
		t.Fatal("the sealed share contains the secret in the clear")
	}
	ks, err := Open(sealed, mine)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := ks.MarshalBinary(); string(got) != string(plain) {
		t.Fatal("the opened share differs from the sealed one")
	}
	if _, err := Open(sealed, other); !errors.Is(err, ErrNotYours) {
		t.Fatalf("other identity: %v, want ErrNotYours", err)
	}
	sealed[len(sealed)-1] ^= 1
	if _, err := Open(sealed, mine); err == nil || errors.Is(err, ErrNotYours) {
		t.Fatalf("tampered share: %v, want a decryption error", err)
	}
}

func TestGenerateAndReadIdentity(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trustee-1")
	rcp, err := GenerateIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, RecipientFile)); strings.TrimSpace(string(b)) != rcp {
		t.Fatalf("recipient.txt = %q, want %q", b, rcp)
	}
	idPath := filepath.Join(dir, IdentityFile)
	before, _ := os.ReadFile(idPath)
	ids, err := ReadIdentityFile(idPath)
	if err != nil || len(ids) != 1 || ids[0].(*age.X25519Identity).Recipient().String() != rcp {
		t.Fatalf("ReadIdentityFile = %v, %v", ids, err)
	}
	if _, err := GenerateIdentity(dir); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second GenerateIdentity: %v, want a refusal", err)
	}
	if after, _ := os.ReadFile(idPath); string(after) != string(before) {
		t.Fatal("a refused GenerateIdentity changed the identity")
	}
	if err := os.Chmod(idPath, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadIdentityFile(idPath); err == nil || !strings.Contains(err.Error(), "want 0600") {
		t.Fatalf("group-readable identity: %v, want a refusal", err)
	}
}

// A keygen interrupted before its identity appeared (a recipient and a
// half-written identity aside are left) is run again and succeeds, with a
// recipient that matches the new identity; an identity path that is not a
// regular file is refused.
func TestGenerateIdentityAfterInterruption(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, RecipientFile), []byte("age1stale\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, IdentityFile+".new"), []byte("AGE-SECRET-KEY-1HALF"), 0o600); err != nil {
		t.Fatal(err)
	}
	rcp, err := GenerateIdentity(dir)
	if err != nil {
		t.Fatalf("keygen after an interrupted one: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, RecipientFile)); strings.TrimSpace(string(b)) != rcp {
		t.Fatalf("recipient.txt = %q, want %q", b, rcp)
	}
	ids, err := ReadIdentityFile(filepath.Join(dir, IdentityFile))
	if err != nil || ids[0].(*age.X25519Identity).Recipient().String() != rcp {
		t.Fatalf("the identity does not match the recipient: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, IdentityFile+".new")); !os.IsNotExist(err) {
		t.Fatalf("the identity's temporary copy is left behind (%v)", err)
	}
	sub := filepath.Join(t.TempDir(), "dir")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadIdentityFile(sub); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a directory as identity file: %v, want a refusal", err)
	}
}
