// Package shareboxtest checks, for tests, that the trustee shares under a
// directory tree never sit together.
package shareboxtest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"filippo.io/age"

	"github.com/fabvote/fabvote/crypto/paillier/threshold"
	"github.com/fabvote/fabvote/internal/sharebox"
)

// CheckApart walks root and returns every problem found, and the number of
// sealed shares (*.share.age): a file that is a key share in the clear; a
// sealed share that opens with no trustee's identity, with more than one,
// or with trustee i's identity but is not share i of pp. ids[i-1] are
// trustee i's identities.
func CheckApart(root string, ids [][]age.Identity, pp *threshold.PublicParams) (problems []string, sealed int, err error) {
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if _, err := threshold.ParseKeyShare(b); err == nil {
			problems = append(problems, path+" is a key share in the clear")
		}
		if strings.HasSuffix(path, ".share.age") {
			sealed++
			problems = append(problems, checkSealed(path, b, ids, pp)...)
		}
		return nil
	})
	return problems, sealed, err
}

// checkSealed: the sealed share b opens with exactly one trustee's
// identities, and is that trustee's share.
func checkSealed(path string, b []byte, ids [][]age.Identity, pp *threshold.PublicParams) []string {
	var problems []string
	var openedBy []int
	for i, id := range ids {
		ks, err := sharebox.Open(b, id...)
		switch {
		case err == nil && ks.Index == i+1 && ks.Check(pp) == nil:
			openedBy = append(openedBy, i+1)
		case err == nil:
			problems = append(problems, fmt.Sprintf("%s opened by trustee %d is share %d, or not of this election", path, i+1, ks.Index))
		case !errors.Is(err, sharebox.ErrNotYours):
			problems = append(problems, fmt.Sprintf("%s with trustee %d's identity: %v", path, i+1, err))
		}
	}
	if len(openedBy) != 1 {
		problems = append(problems, fmt.Sprintf("%s opens with trustees %v, want exactly one", path, openedBy))
	}
	return problems
}
