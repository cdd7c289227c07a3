package ballot

import (
	"encoding/json"
	"reflect"
	"sync"

	"github.com/hyperledger/fabric-contract-api-go/v2/metadata"
	"github.com/hyperledger/fabric-contract-api-go/v2/serializer"
)

// textSerializer is contractapi's JSON serializer minus one cost that buys
// nothing: for string and []byte parameters and returns whose schema is only
// the type ({"type":"string"}, with format "byte" for []byte), the JSON
// serializer still validates the converted value against that schema, which
// means marshalling the whole argument to JSON, decoding it again and walking
// it (about 80 µs for a 3 KiB ballot, a quarter of a cast's non-proof CPU).
// Such a schema cannot fail: the value is a string or a byte slice by
// construction, and gojsonschema checks no "byte" format. Any other schema
// (a constraint from a metadata file, or another type) goes through the JSON
// serializer unchanged, so what is accepted is exactly what it accepts.
type textSerializer struct {
	serializer.JSONSerializer
	trivial sync.Map // schemaKey → bool: the schema is only the string type
}

var (
	stringType = reflect.TypeOf("")
	bytesType  = reflect.TypeOf([]byte(nil))
)

// FromString implements serializer.TransactionSerializer.
func (s *textSerializer) FromString(param string, fieldType reflect.Type, pm *metadata.ParameterMetadata, components *metadata.ComponentMetadata) (reflect.Value, error) {
	if pm != nil && s.skips(fieldType, pm.Schema, pm.CompiledSchema == nil) {
		pm = nil // conversion only: the schema cannot reject the value
	}
	return s.JSONSerializer.FromString(param, fieldType, pm, components)
}

// ToString implements serializer.TransactionSerializer.
func (s *textSerializer) ToString(result reflect.Value, resultType reflect.Type, rm *metadata.ReturnMetadata, components *metadata.ComponentMetadata) (string, error) {
	if rm != nil && s.skips(resultType, rm.Schema, rm.CompiledSchema == nil) {
		rm = nil
	}
	return s.JSONSerializer.ToString(result, resultType, rm, components)
}

type schemaKey struct {
	typ    reflect.Type
	schema any // the metadata's *spec.Schema: built once, at start
}

// skips reports whether validating a value of typ against schema is a
// tautology. The answer is computed once per schema (contractapi builds the
// metadata once, at start, and passes the same pointers on every call).
func (s *textSerializer) skips(typ reflect.Type, schema any, uncompiled bool) bool {
	if typ != stringType && typ != bytesType {
		return false
	}
	if uncompiled {
		return true // the JSON serializer would not validate either
	}
	key := schemaKey{typ, schema}
	if v, ok := s.trivial.Load(key); ok {
		return v.(bool)
	}
	ok := trivialSchema(typ, schema)
	s.trivial.Store(key, ok)
	return ok
}

// trivialSchema reports whether schema says no more than "a string" (for
// []byte: "a string of format byte").
func trivialSchema(typ reflect.Type, schema any) bool {
	enc, err := json.Marshal(schema)
	if err != nil {
		return false
	}
	switch string(enc) {
	case `{"type":"string"}`:
		return true
	case `{"type":"string","format":"byte"}`, `{"format":"byte","type":"string"}`:
		return typ == bytesType
	}
	return false
}

var _ serializer.TransactionSerializer = (*textSerializer)(nil)
