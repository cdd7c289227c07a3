/*
SPDX-License-Identifier: Apache-2.0
*/

package leveldbhelper

// fabvote: the LevelDB options switch (O-VII) as the ledger's databases see
// it. fabric/build.sh test runs this package with FABVOTE_LEVELDB=stock (the
// default) and =tuned.

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hyperledger/fabric/fabvote/leveldbopts"
	"github.com/syndtr/goleveldb/leveldb"
)

func TestFabvoteLevelDBOptionsFollowTheEnvironment(t *testing.T) {
	want := leveldbopts.Stock
	if strings.EqualFold(strings.TrimSpace(os.Getenv(leveldbopts.EnvVar)), "tuned") {
		want = leveldbopts.Tuned
	}
	if got := leveldbopts.Active(); got != want {
		t.Fatalf("LevelDB options %v, want %v", got, want)
	}
}

// A database written under the active setting and reopened under the other
// holds the same keys and values: the setting never changes what the ledger
// stores, so a peer can be restarted with FABVOTE_LEVELDB changed.
func TestFabvoteLevelDBReopenUnderOtherSetting(t *testing.T) {
	dir := t.TempDir()
	db := CreateDB(&Conf{DBPath: dir})
	db.Open()
	want := map[string]string{}
	for i := 0; i < 2000; i++ {
		k, v := fmt.Sprintf("ballot%05d", i), strings.Repeat(fmt.Sprint(i%7), 1000)
		want[k] = v
		if err := db.Put([]byte(k), []byte(v), i%100 == 0); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	other := leveldbopts.Tuned
	if leveldbopts.Active() == leveldbopts.Tuned {
		other = leveldbopts.Stock
	}
	raw, err := leveldbOpen(dir, other)
	if err != nil {
		t.Fatalf("reopening under %v: %v", other, err)
	}
	defer raw.Close()
	for k, v := range want {
		got, err := raw.Get([]byte(k), nil)
		if err != nil || string(got) != v {
			t.Fatalf("key %s under %v: %q, %v", k, other, got, err)
		}
	}
}

func leveldbOpen(dir string, t leveldbopts.Tuning) (*leveldb.DB, error) {
	o := t.Options()
	o.ErrorIfMissing = true
	return leveldb.OpenFile(dir, o)
}
