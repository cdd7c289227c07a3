package election

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
)

// decodeStrict decodes data, a JSON object with exactly the keys keys
// (case-sensitive, which strictJSON's field matching is not), into v. Errors: DECODE, naming a missing or an
// unknown key. The caller then compares data with its canonical encoding,
// which settles the keys' order, spacing and the values' spelling.
func decodeStrict(data []byte, what string, keys []string, v any) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return wrapf(CodeDecode, err, "%s is not one JSON object", what)
	}
	for _, k := range keys {
		if _, ok := fields[k]; !ok {
			return errorf(CodeDecode, "%s: key %q is missing", what, k)
		}
	}
	var unknown []string
	for k := range fields {
		if !slices.Contains(keys, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return errorf(CodeDecode, "%s: unknown key %q", what, truncate(unknown[0], 40))
	}
	if err := strictJSON(data, v); err != nil {
		return wrapf(CodeDecode, err, "%s", what)
	}
	return nil
}

// checkCanonical is DECODE unless data is exactly canonical, the encoding
// Marshal writes: keys in order, no spaces, no repeated key, lowercase hex
// without leading zeros.
func checkCanonical(data, canonical []byte, what string) error {
	if !bytes.Equal(data, canonical) {
		return errorf(CodeDecode, "%s is not in canonical form (keys in order, no spaces, no repeated key, lowercase hex without leading zeros)", what)
	}
	return nil
}
