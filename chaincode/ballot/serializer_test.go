package ballot

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/go-openapi/spec"
	"github.com/hyperledger/fabric-contract-api-go/v2/metadata"
	"github.com/hyperledger/fabric-contract-api-go/v2/serializer"
	"github.com/xeipuuv/gojsonschema"
)

func paramMeta(t *testing.T, s *spec.Schema) *metadata.ParameterMetadata {
	t.Helper()
	compiled, err := gojsonschema.NewSchema(gojsonschema.NewGoLoader(map[string]any{
		"type": "object", "properties": map[string]any{"p": s}, "required": []string{"p"},
	}))
	if err != nil {
		t.Fatal(err)
	}
	return &metadata.ParameterMetadata{Name: "p", Schema: s, CompiledSchema: compiled}
}

// TestTextSerializerAgreesWithJSON checks that the fast path changes no
// verdict: for every case, textSerializer accepts exactly what contractapi's
// JSON serializer accepts and converts to the same value, and it skips the
// schema only where the schema is the bare type.
func TestTextSerializerAgreesWithJSON(t *testing.T) {
	binary := string([]byte{0x01, 0xff, 0x00, 0xc3, 0x28, 'x'}) // not UTF-8
	maxLen := int64(3)
	short := spec.StringProperty()
	short.MaxLength = &maxLen
	for _, tc := range []struct {
		name   string
		typ    reflect.Type
		schema *spec.Schema
		param  string
		skip   bool // the schema is a tautology for typ
		ok     bool
	}{
		{"bytes, format byte", bytesType, &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"string"}, Format: "byte"}}, binary, true, true},
		{"bytes, bare string", bytesType, spec.StringProperty(), binary, true, true},
		{"string", stringType, spec.StringProperty(), binary, true, true},
		{"empty string", stringType, spec.StringProperty(), "", true, true},
		{"string, format byte is not the string schema", stringType, &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"string"}, Format: "byte"}}, "abc", false, true},
		{"string with maxLength, fits", stringType, short, "abc", false, true},
		{"string with maxLength, too long", stringType, short, "abcd", false, false},
		{"int32", reflect.TypeOf(int32(0)), spec.Int32Property(), "12", false, true},
		{"int32, not a number", reflect.TypeOf(int32(0)), spec.Int32Property(), "twelve", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pm := paramMeta(t, tc.schema)
			fast := &textSerializer{}
			if got := fast.skips(tc.typ, pm.Schema, false); got != tc.skip {
				t.Fatalf("skips = %v, want %v", got, tc.skip)
			}
			got, gotErr := fast.FromString(tc.param, tc.typ, pm, nil)
			want, wantErr := new(serializer.JSONSerializer).FromString(tc.param, tc.typ, pm, nil)
			if (gotErr == nil) != tc.ok || (wantErr == nil) != tc.ok {
				t.Fatalf("errors: textSerializer %v, JSONSerializer %v; want ok=%v", gotErr, wantErr, tc.ok)
			}
			if tc.ok && !reflect.DeepEqual(got.Interface(), want.Interface()) {
				t.Fatalf("converted %v, JSONSerializer converted %v", got, want)
			}
		})
	}
}

// TestContractStringParametersSkipSchema pins that the fast path applies to
// the contract's own transactions (CastBallot's ballot above all): the
// schemas contractapi generates for them must count as bare types. If a new
// contractapi version generated richer schemas, this fails rather than the
// speed-up silently disappearing.
func TestContractStringParametersSkipSchema(t *testing.T) {
	cc, err := NewChaincode(Config{})
	if err != nil {
		t.Fatal(err)
	}
	fast, ok := cc.TransactionSerializer.(*textSerializer)
	if !ok {
		t.Fatalf("chaincode serializer is %T, want *textSerializer", cc.TransactionSerializer)
	}
	s := newWorld().tx(during)
	s.fn = "org.hyperledger.fabric:GetMetadata"
	resp := cc.Invoke(s)
	var meta struct {
		Contracts map[string]struct {
			Transactions []struct {
				Name       string
				Parameters []struct {
					Name   string
					Schema *spec.Schema
				}
			}
		}
	}
	if resp.Status != 200 || json.Unmarshal(resp.Payload, &meta) != nil {
		t.Fatalf("GetMetadata: %d %.200s", resp.Status, resp.Payload)
	}
	checked := 0
	for _, tx := range meta.Contracts["ballot"].Transactions {
		for _, p := range tx.Parameters {
			typ := stringType
			switch {
			case tx.Name == "CastBallot":
				typ = bytesType
			case !p.Schema.Type.Contains("string"):
				continue // ListBallots' page size: validated as before
			}
			checked++
			if !fast.skips(typ, p.Schema, false) {
				t.Errorf("%s %s (%v): schema %v is validated; want it skipped", tx.Name, p.Name, typ, p.Schema)
			}
		}
	}
	if checked < 8 {
		t.Fatalf("checked %d string parameters, want the contract's 8", checked)
	}
}
