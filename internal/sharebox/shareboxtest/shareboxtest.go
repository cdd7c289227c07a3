// Package shareboxtest checks, for tests, that the trustee shares under a
// directory tree never sit together.
package shareboxtest

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"filippo.io/age"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/internal/sharebox"
)

// ageHeader starts every age-encrypted file.
var ageHeader = []byte("age-encryption.org/v1")

// maxIdentityFile bounds the files tried as age identity files.
const maxIdentityFile = 64 << 10

// file is one regular file of the tree.
type file struct {
	path string
	b    []byte
}

// CheckApart walks root and returns every problem found, and the number of
// sealed shares (age files that open to a key share). ids[i-1] are trustee
// i's identities. Problems:
//   - an age file that opens with no trustee's identity, with more than
//     one, or with trustee i's identity but is not share i of pp;
//   - a directory holding two usable shares: a share in the clear, or a
//     sealed share together with an identity file that opens it;
//   - a share in the clear anywhere, whole file or inside one, in any
//     encoding fabvote uses for bytes (raw, hex, base64): the encoding of
//     every share found sealed is searched for in every file.
func CheckApart(root string, ids [][]age.Identity, pp *threshold.PublicParams) (problems []string, sealed int, err error) {
	files, err := readTree(root)
	if err != nil {
		return nil, 0, err
	}
	dirIDs := identityFiles(files)
	usable := map[string][]string{} // directory -> usable shares in it
	var found [][]byte              // encodings of the shares opened
	for _, f := range files {
		if _, err := threshold.ParseKeyShare(f.b); err == nil {
			problems = append(problems, f.path+" is a key share in the clear")
			usable[filepath.Dir(f.path)] = append(usable[filepath.Dir(f.path)], f.path+" (in the clear)")
		}
		if !bytes.HasPrefix(f.b, ageHeader) {
			continue
		}
		ks, ps := checkSealed(f.path, f.b, ids, pp)
		problems = append(problems, ps...)
		if ks == nil {
			continue
		}
		sealed++
		enc, _ := ks.MarshalBinary()
		found = append(found, enc)
		ks.Wipe()
		if local := dirIDs[filepath.Dir(f.path)]; len(local) > 0 {
			if _, err := sharebox.Open(f.b, local...); err == nil {
				usable[filepath.Dir(f.path)] = append(usable[filepath.Dir(f.path)], f.path)
			}
		}
	}
	problems = append(problems, together(usable)...)
	problems = append(problems, inTheClear(files, found)...)
	return problems, sealed, nil
}

func readTree(root string) ([]file, error) {
	var files []file
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files = append(files, file{path, b})
		return nil
	})
	return files, err
}

// identityFiles maps each directory to the age identities in its files.
func identityFiles(files []file) map[string][]age.Identity {
	out := map[string][]age.Identity{}
	for _, f := range files {
		if len(f.b) > maxIdentityFile || !bytes.Contains(f.b, []byte("AGE-SECRET-KEY-1")) {
			continue
		}
		if got, err := age.ParseIdentities(bytes.NewReader(f.b)); err == nil {
			out[filepath.Dir(f.path)] = append(out[filepath.Dir(f.path)], got...)
		}
	}
	return out
}

// checkSealed: the age file b opens with exactly one trustee's identities,
// and is that trustee's share, which it returns.
func checkSealed(path string, b []byte, ids [][]age.Identity, pp *threshold.PublicParams) (*threshold.KeyShare, []string) {
	var problems []string
	var openedBy []int
	var share *threshold.KeyShare
	for i, id := range ids {
		ks, err := sharebox.Open(b, id...)
		switch {
		case err == nil && ks.Index == i+1 && ks.Check(pp) == nil:
			openedBy = append(openedBy, i+1)
			share = ks
		case err == nil:
			problems = append(problems, fmt.Sprintf("%s opened by trustee %d is share %d, or not of this election", path, i+1, ks.Index))
			share = ks
		case !errors.Is(err, sharebox.ErrNotYours):
			problems = append(problems, fmt.Sprintf("%s with trustee %d's identity: %v", path, i+1, err))
		}
	}
	if len(openedBy) != 1 {
		problems = append(problems, fmt.Sprintf("%s opens with trustees %v, want exactly one", path, openedBy))
	}
	return share, problems
}

// together names each directory with two usable shares.
func together(usable map[string][]string) []string {
	var problems []string
	for dir, shares := range usable {
		if len(shares) > 1 {
			sort.Strings(shares)
			problems = append(problems, fmt.Sprintf("directory %s holds %d usable shares: %v", dir, len(shares), shares))
		}
	}
	sort.Strings(problems)
	return problems
}

// inTheClear names each file that holds one of the share encodings raw,
// in hex or in base64.
func inTheClear(files []file, shares [][]byte) []string {
	var problems []string
	for _, enc := range shares {
		needles := map[string][]byte{
			"raw":            enc,
			"hex":            []byte(hex.EncodeToString(enc)),
			"upper-case hex": bytes.ToUpper([]byte(hex.EncodeToString(enc))),
			"base64":         []byte(base64.StdEncoding.EncodeToString(enc)),
			"base64url":      []byte(base64.RawURLEncoding.EncodeToString(enc)),
		}
		for _, f := range files {
			for name, n := range needles {
				if bytes.Contains(f.b, n) {
					problems = append(problems, fmt.Sprintf("%s holds a key share in the clear (%s)", f.path, name))
				}
			}
		}
	}
	sort.Strings(problems)
	return problems
}
