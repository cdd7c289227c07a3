package fabnet

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeRows is network/README.md's table rows by their first cell, its
// backticks and a "(default)" taken off.
func readmeRows(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Split(l, "|"); len(f) > 3 && strings.HasPrefix(l, "|") {
			key := strings.TrimSpace(strings.ReplaceAll(strings.TrimSuffix(strings.TrimSpace(f[1]), "(default)"), "`", ""))
			rows[key] = l
		}
	}
	return rows
}

// TestREADMEDescribesTheProfiles: network/README.md's profile table has a
// row per registered profile naming its organisations' MSP ids, its
// PROFILE row lists exactly the registered profiles, and its batch rows
// give DefaultBatch, so that neither copy goes stale.
func TestREADMEDescribesTheProfiles(t *testing.T) {
	rows := readmeRows(t)
	for _, name := range Profiles() {
		top, err := Profile(name, 7050, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range top.Orgs {
			if !strings.Contains(rows[name], "`"+o.MSPID+"`") {
				t.Errorf("network/README.md: the row of profile %s does not name %s (got %q)", name, o.MSPID, rows[name])
			}
		}
	}
	listed := regexp.MustCompile("`([a-z0-9-]+)`").FindAllStringSubmatch(strings.SplitN(rows["PROFILE"], "|", 4)[3], -1)
	var names []string
	for _, m := range listed {
		names = append(names, m[1])
	}
	if want := Profiles(); !slices.Equal(names, want) {
		t.Errorf("network/README.md: the PROFILE row lists %q, the registry %q", names, want)
	}
	for v, want := range map[string]string{
		"BATCH_SIZE": fmt.Sprint(DefaultBatch.MaxMessageCount), "BATCH_TIMEOUT": DefaultBatch.Timeout,
		"BATCH_PREFERRED_BYTES": DefaultBatch.PreferredMaxBytes, "BATCH_ABSOLUTE_BYTES": DefaultBatch.AbsoluteMaxBytes,
	} {
		if f := strings.Split(rows[v], "|"); len(f) < 3 || strings.TrimSpace(f[2]) != want {
			t.Errorf("network/README.md: %s's default is not %s (got %q)", v, want, rows[v])
		}
	}
}
