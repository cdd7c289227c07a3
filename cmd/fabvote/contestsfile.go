package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/fabvote/fabvote/election"
)

// contestsFile is election create --contests FILE: the election's
// contests, and its ballot styles (none: one style "default" of every
// contest). A contest without "encoding" gets the one its shape makes
// cheaper (docs/PROTOCOL.md section 3.7).
type contestsFile struct {
	Contests []election.Contest `json:"contests"`
	Styles   []election.Style   `json:"styles"`
}

// readContestsFile reads and completes a contests file; the manifest's
// checks judge what it says.
func readContestsFile(path string) ([]election.Contest, []election.Style, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--contests: %w", err)
	}
	var f contestsFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, nil, fmt.Errorf("--contests %s: %w", path, err)
	}
	if dec.More() {
		return nil, nil, fmt.Errorf("--contests %s: trailing data after the JSON object", path)
	}
	for i := range f.Contests {
		c := &f.Contests[i]
		if c.Encoding == "" {
			c.Encoding = election.NewContest(c.ID, c.Title, c.Options, c.Min, c.Max, c.Blank).Encoding
		}
	}
	if len(f.Styles) == 0 {
		all := election.Style{ID: election.OneStyleID}
		for _, c := range f.Contests {
			all.Contests = append(all.Contests, c.ID)
		}
		f.Styles = []election.Style{all}
	}
	return f.Contests, f.Styles, nil
}
