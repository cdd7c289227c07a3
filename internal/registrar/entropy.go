package registrar

import (
	"fmt"
	"math"
	"strings"
)

// MinCodeBits is the least estimated entropy a roll code may have.
const MinCodeBits = 80

// codeAlphabets are the alphabets codes are drawn from, smallest first. A
// code's entropy is estimated as len(code) × log2(|A|), where A is the first
// alphabet here that holds every character of the code. That is an upper
// bound (it assumes each character was drawn uniformly from A), so the check
// cannot prove a code random; it refuses codes that cannot hold MinCodeBits
// whatever their source. NewCode's 20 base32 characters give 100 bits.
var codeAlphabets = []struct{ name, chars string }{
	{"decimal digits", "0123456789"},
	{"lower-case hex", "0123456789abcdef"},
	{"upper-case hex", "0123456789ABCDEF"},
	{"base32", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"},
	{"lower-case letters and digits", "abcdefghijklmnopqrstuvwxyz0123456789"},
	{"upper-case letters and digits", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"},
	{"letters and digits", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"},
	{"base64url", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"},
	{"base64", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"},
	{"printable ASCII", printableASCII()},
}

func printableASCII() string {
	var b strings.Builder
	for c := byte(0x20); c < 0x7f; c++ {
		b.WriteByte(c)
	}
	return b.String()
}

// CodeBits estimates a code's entropy in bits, with the alphabet the
// estimate assumes and its size. A code with a character outside printable
// ASCII is an error.
func CodeBits(code string) (bits float64, alphabet string, size int, err error) {
	for _, a := range codeAlphabets {
		if onlyFrom(code, a.chars) {
			size = len(a.chars)
			return float64(len(code)) * math.Log2(float64(size)), a.name, size, nil
		}
	}
	return 0, "", 0, fmt.Errorf("code has a character outside printable ASCII")
}

func onlyFrom(s, chars string) bool {
	for _, r := range s {
		if !strings.ContainsRune(chars, r) {
			return false
		}
	}
	return true
}

// CheckCodeStrength refuses a code whose estimated entropy is below MinCodeBits.
func CheckCodeStrength(code string) error {
	bits, alphabet, size, err := CodeBits(code)
	if err != nil {
		return err
	}
	if bits < MinCodeBits {
		need := int(math.Ceil(MinCodeBits / math.Log2(float64(size))))
		return fmt.Errorf("%d characters of %s hold at most %.0f bits, fewer than %d: use at least %d such characters (or `fabvote ea roll`)", len(code), alphabet, bits, MinCodeBits, need)
	}
	return nil
}
