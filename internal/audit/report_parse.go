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

// exactFieldNames refuses a key of object b, at any depth, that names one
// of t's JSON fields in other letter case: encoding/json matches keys
// without regard to case, so "OK" would otherwise stand for "ok", and a
// reader that matches keys exactly (a browser, the Python verifier) would
// read another verdict than this one.
func exactFieldNames(b []byte, t reflect.Type) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return nil // not an object: the typed decoding already judged it
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		for k, v := range keys {
			switch {
			case k != name && strings.EqualFold(k, name):
				return fmt.Errorf("field %q: the format spells it %q", k, name)
			case k == name:
				if err := exactElements(v, f.Type); err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
			}
		}
	}
	return nil
}

// exactElements applies exactFieldNames to v, or to each element of v when
// it is an array.
func exactElements(v json.RawMessage, t reflect.Type) error {
	var elems []json.RawMessage
	if json.Unmarshal(v, &elems) != nil {
		return exactFieldNames(v, t)
	}
	for i, e := range elems {
		if err := exactFieldNames(e, t); err != nil {
			return fmt.Errorf("element %d: %w", i, err)
		}
	}
	return nil
}
