package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// ParseJSONReport decodes a JSON verification report of either verifier
// and checks what makes it one: a single JSON object whose known fields
// are spelt exactly as the format spells them (encoding/json would take
// "OK" for "ok"), ReportFormat at ReportVersion, an "ok" field, and a
// verdict that agrees with its steps and failures. Unknown fields are
// tolerated, so that a verifier may add some. What a report says about a
// particular record (its source, election and digest) is for its reader
// to check.
func ParseJSONReport(b []byte) (*JSONReport, error) {
	var r JSONReport
	if err := decodeSingle(b, &r); err != nil {
		return nil, fmt.Errorf("malformed JSON: %w", err)
	}
	if err := exactFieldNames(b, reflect.TypeOf(r)); err != nil {
		return nil, err
	}
	switch {
	case r.Format != ReportFormat || r.Version != ReportVersion:
		return nil, fmt.Errorf("format %q version %d, want %q version %d", r.Format, r.Version, ReportFormat, ReportVersion)
	case r.OK == nil:
		return nil, errors.New(`no "ok" field`)
	}
	failed := len(r.Failures) > 0
	for _, s := range r.Steps {
		failed = failed || !s.OK
	}
	if *r.OK && failed {
		return nil, errors.New("says ok but lists a failed step or a failure")
	}
	if !*r.OK && !failed {
		return nil, errors.New("says not ok but lists no failed step and no failure")
	}
	return &r, nil
}

// decodeSingle decodes b, which must hold one JSON value and nothing after it.
func decodeSingle(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err == nil {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// exactFieldNames refuses a top-level key of object b that names one of
// t's JSON fields in other letter case: encoding/json matches keys without
// regard to case, so "OK" would otherwise stand for "ok".
func exactFieldNames(b []byte, t reflect.Type) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return fmt.Errorf("malformed JSON: %w", err)
	}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		for k := range keys {
			if k != name && strings.EqualFold(k, name) {
				return fmt.Errorf("field %q: the format spells it %q", k, name)
			}
		}
	}
	return nil
}
