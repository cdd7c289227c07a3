package record_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/record"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

const schemaDir = "../../docs/record"

func compile(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	s, err := jsonschema.NewCompiler().Compile(filepath.Join(schemaDir, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, what string, b []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: not JSON: %v", what, err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("%s does not follow its schema: %v", what, err)
	}
}

// TestSchemas validates every JSON file of every committed record, and the
// reports of them and of a failing and a live verification, against
// docs/record's schemas.
func TestSchemas(t *testing.T) {
	files := map[string]*jsonschema.Schema{
		record.RecordFile: compile(t, "record.schema.json"), record.BallotsFile: compile(t, "ballots.schema.json"),
		record.ManifestFile: compile(t, "manifest.schema.json"), record.ResultFile: compile(t, "result.schema.json"),
	}
	report := compile(t, "report.schema.json")
	dirs, err := filepath.Glob(filepath.Join(fixturesDir, "*", record.RecordFile))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, rf := range dirs {
		dir := filepath.Dir(rf)
		for name, s := range files {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			validate(t, s, filepath.Join(dir, name), b)
		}
		validateReport(t, report, dir, verify(t, dir, record.Options{}))
	}
	tampered := copyRecord(t)
	editIndex(t, tampered, func(es []record.Entry) []record.Entry { return es[1:] })
	validateReport(t, report, "tampered index", verify(t, tampered, record.Options{}))
	validateReport(t, report, "stopped at the blocks", verify(t, goodFixture, record.Options{GenesisHash: make([]byte, 32)}))
	live := &audit.Report{ElectionID: "e", Failures: []audit.Failure{{Kind: audit.KindSource, Subject: "ballots", Err: "peer down"}}}
	validateReport(t, report, "live", live)
}

func validateReport(t *testing.T, s *jsonschema.Schema, what string, rep *audit.Report) {
	t.Helper()
	b, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	validate(t, s, "the report of "+what, b)
}
