package threshold

import (
	"fmt"
	"strings"
	"testing"
)

// TestKeyShareNeverPrintsSecret: no fmt verb shows s_i in any base.
func TestKeyShareNeverPrintsSecret(t *testing.T) {
	_, shares := testDeal(t, sizeSmall, 2, 3)
	ks := shares[1]
	forms := []string{ks.secret.Text(10), ks.secret.Text(16), strings.ToUpper(ks.secret.Text(16)), ks.secret.Text(2)[:64]}
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%X", "%q", "%T %v"} {
		for name, val := range map[string]any{"value": *ks, "pointer": ks, "slice": shares, "struct": struct{ S *KeyShare }{ks}} {
			out := fmt.Sprintf(format, val)
			for _, f := range forms {
				if strings.Contains(out, f) {
					t.Fatalf("%s of %s prints the secret: %s", format, name, out)
				}
			}
			if format == "%v" && !strings.Contains(out, "redacted") {
				t.Fatalf("%%v of %s: %q does not say the secret is redacted", name, out)
			}
		}
	}
}
