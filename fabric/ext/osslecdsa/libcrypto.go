package osslecdsa

// A minimal binding to OpenSSL's libcrypto (3.x, or 1.1.1), loaded at run
// time with dlopen so that the binary neither links against OpenSSL nor
// needs its headers to build: the few prototypes used are declared here,
// with the library's types kept opaque.
//
// It uses the EC_KEY / ECDSA_do_verify / ECDSA_do_sign functions rather than
// the EVP interface: with OpenSSL 3.0 the EVP interface needs a new
// EVP_PKEY_CTX per operation, and that costs more than the gain over Go.
// The functions are deprecated in OpenSSL 3 but present in every 3.x release.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

typedef struct ec_key_st EC_KEY;
typedef struct bignum_st BIGNUM;
typedef struct ECDSA_SIG_st ECDSA_SIG;

static EC_KEY *(*p_EC_KEY_new_by_curve_name)(int);
static void (*p_EC_KEY_free)(EC_KEY *);
static int (*p_EC_KEY_set_public_key_affine_coordinates)(EC_KEY *, BIGNUM *, BIGNUM *);
static int (*p_EC_KEY_set_private_key)(EC_KEY *, const BIGNUM *);
static int (*p_EC_KEY_check_key)(const EC_KEY *);
static BIGNUM *(*p_BN_bin2bn)(const unsigned char *, int, BIGNUM *);
static void (*p_BN_free)(BIGNUM *);
static void (*p_BN_clear_free)(BIGNUM *);
static int (*p_BN_bn2binpad)(const BIGNUM *, unsigned char *, int);
static ECDSA_SIG *(*p_ECDSA_SIG_new)(void);
static void (*p_ECDSA_SIG_free)(ECDSA_SIG *);
static int (*p_ECDSA_SIG_set0)(ECDSA_SIG *, BIGNUM *, BIGNUM *);
static void (*p_ECDSA_SIG_get0)(const ECDSA_SIG *, const BIGNUM **, const BIGNUM **);
static int (*p_ECDSA_do_verify)(const unsigned char *, int, const ECDSA_SIG *, EC_KEY *);
static ECDSA_SIG *(*p_ECDSA_do_sign)(const unsigned char *, int, EC_KEY *);
static void (*p_ERR_clear_error)(void);
static const char *(*p_OpenSSL_version)(int);

#define NID_X9_62_prime256v1 415

// fv_load opens lib and resolves every symbol. It returns NULL on success,
// or the name of what was missing.
static const char *fv_load(const char *lib) {
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) return "dlopen";
#define SYM(name) if ((*(void **)(&p_##name) = dlsym(h, #name)) == NULL) return #name
	SYM(EC_KEY_new_by_curve_name);
	SYM(EC_KEY_free);
	SYM(EC_KEY_set_public_key_affine_coordinates);
	SYM(EC_KEY_set_private_key);
	SYM(EC_KEY_check_key);
	SYM(BN_bin2bn);
	SYM(BN_free);
	SYM(BN_clear_free);
	SYM(BN_bn2binpad);
	SYM(ECDSA_SIG_new);
	SYM(ECDSA_SIG_free);
	SYM(ECDSA_SIG_set0);
	SYM(ECDSA_SIG_get0);
	SYM(ECDSA_do_verify);
	SYM(ECDSA_do_sign);
	SYM(ERR_clear_error);
	SYM(OpenSSL_version);
#undef SYM
	return NULL;
}

static const char *fv_version(void) { return p_OpenSSL_version(0); }

// fv_new_key builds a P-256 key from the 32-byte big-endian coordinates and,
// if d is not NULL, the 32-byte private scalar. The key is checked (point on
// the curve, d matches it). NULL on any failure.
static EC_KEY *fv_new_key(const unsigned char *x, const unsigned char *y, const unsigned char *d) {
	EC_KEY *k = p_EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
	BIGNUM *bx = p_BN_bin2bn(x, 32, NULL), *by = p_BN_bin2bn(y, 32, NULL), *bd = NULL;
	int ok = k != NULL && bx != NULL && by != NULL &&
		p_EC_KEY_set_public_key_affine_coordinates(k, bx, by) == 1;
	if (ok && d != NULL) {
		bd = p_BN_bin2bn(d, 32, NULL);
		ok = bd != NULL && p_EC_KEY_set_private_key(k, bd) == 1 && p_EC_KEY_check_key(k) == 1;
	}
	p_BN_free(bx);
	p_BN_free(by);
	p_BN_clear_free(bd);
	if (!ok) {
		p_EC_KEY_free(k);
		k = NULL;
	}
	p_ERR_clear_error();
	return k;
}

static void fv_free_key(EC_KEY *k) { p_EC_KEY_free(k); }

// fv_verify returns 1 for a valid signature, 0 for an invalid one and -1 on
// an internal error. r and s are big-endian; OpenSSL rejects r, s outside
// [1, N-1] itself.
static int fv_verify(EC_KEY *k, const unsigned char *dgst, int dlen,
		const unsigned char *r, int rlen, const unsigned char *s, int slen) {
	int ret = -1;
	ECDSA_SIG *sig = p_ECDSA_SIG_new();
	BIGNUM *br = p_BN_bin2bn(r, rlen, NULL), *bs = p_BN_bin2bn(s, slen, NULL);
	if (sig != NULL && br != NULL && bs != NULL && p_ECDSA_SIG_set0(sig, br, bs) == 1) {
		br = bs = NULL; // owned by sig now
		ret = p_ECDSA_do_verify(dgst, dlen, sig, k);
	}
	p_BN_free(br);
	p_BN_free(bs);
	p_ECDSA_SIG_free(sig);
	p_ERR_clear_error();
	return ret < 0 ? -1 : ret;
}

// fv_sign signs and writes r and s, 32 bytes each, big-endian. 1 on success.
static int fv_sign(EC_KEY *k, const unsigned char *dgst, int dlen, unsigned char *r, unsigned char *s) {
	const BIGNUM *br = NULL, *bs = NULL;
	int ok = 0;
	ECDSA_SIG *sig = p_ECDSA_do_sign(dgst, dlen, k);
	if (sig != NULL) {
		p_ECDSA_SIG_get0(sig, &br, &bs);
		ok = br != NULL && bs != NULL && p_BN_bn2binpad(br, r, 32) == 32 && p_BN_bn2binpad(bs, s, 32) == 32;
		p_ECDSA_SIG_free(sig);
	}
	p_ERR_clear_error();
	return ok;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"
)

// loadLibrary resolves libcrypto from lib (a soname for dlopen).
func loadLibrary(lib string) error {
	clib := C.CString(lib)
	defer C.free(unsafe.Pointer(clib))
	if missing := C.fv_load(clib); missing != nil {
		what := C.GoString(missing)
		if what == "dlopen" {
			return fmt.Errorf("dlopen %s: %s", lib, C.GoString(C.dlerror()))
		}
		return fmt.Errorf("%s lacks the symbol %s", lib, what)
	}
	return nil
}

func libraryVersion() string { return C.GoString(C.fv_version()) }

// ecKey owns an OpenSSL EC_KEY; the finalizer frees it once no goroutine
// uses it (every use ends with runtime.KeepAlive).
type ecKey struct{ p *C.EC_KEY }

var errKey = errors.New("osslecdsa: OpenSSL rejected the key")

// newECKey builds a key from 32-byte coordinates; d is nil for a public key.
func newECKey(x, y, d []byte) (*ecKey, error) {
	var dp *C.uchar
	if d != nil {
		dp = (*C.uchar)(unsafe.Pointer(&d[0]))
	}
	p := C.fv_new_key((*C.uchar)(unsafe.Pointer(&x[0])), (*C.uchar)(unsafe.Pointer(&y[0])), dp)
	if p == nil {
		return nil, errKey
	}
	k := &ecKey{p: p}
	runtime.SetFinalizer(k, func(k *ecKey) { C.fv_free_key(k.p) })
	return k, nil
}

// verify returns 1 (valid), 0 (invalid) or -1 (OpenSSL failed).
func (k *ecKey) verify(digest, r, s []byte) int {
	// BN_bin2bn wants a non-NULL pointer even for zero bytes.
	var zero [1]byte
	if len(r) == 0 {
		r = zero[:0:1]
	}
	if len(s) == 0 {
		s = zero[:0:1]
	}
	dg := digest
	if len(dg) == 0 {
		dg = zero[:0:1]
	}
	ret := C.fv_verify(k.p, (*C.uchar)(unsafe.Pointer(unsafe.SliceData(dg))), C.int(len(digest)),
		(*C.uchar)(unsafe.Pointer(unsafe.SliceData(r))), C.int(len(r)),
		(*C.uchar)(unsafe.Pointer(unsafe.SliceData(s))), C.int(len(s)))
	runtime.KeepAlive(k)
	return int(ret)
}

// sign returns r and s, 32 bytes each.
func (k *ecKey) sign(digest []byte) (r, s [32]byte, ok bool) {
	var zero [1]byte
	dg := digest
	if len(dg) == 0 {
		dg = zero[:0:1]
	}
	ret := C.fv_sign(k.p, (*C.uchar)(unsafe.Pointer(unsafe.SliceData(dg))), C.int(len(digest)),
		(*C.uchar)(unsafe.Pointer(&r[0])), (*C.uchar)(unsafe.Pointer(&s[0])))
	runtime.KeepAlive(k)
	return r, s, ret == 1
}
