//go:build cgo && linux

package libcrypto

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

// The few libcrypto entry points used, declared here rather than taken from
// OpenSSL's headers so that building needs no libssl-dev. Their signatures
// are OpenSSL 3's, which libcrypto.so.3 exports as real functions (1.1's
// EVP_PKEY_CTX_set_* were macros, which is why only soname 3 is opened).
typedef struct carteiro_libcrypto {
	void *handle;
	unsigned long (*version_num)(void);
	void *(*d2i_private_key)(int type, void **a, const unsigned char **pp, long length);
	void (*pkey_free)(void *pkey);
	void *(*ctx_new)(void *pkey, void *engine);
	void (*ctx_free)(void *ctx);
	int (*sign_init)(void *ctx);
	int (*set_rsa_padding)(void *ctx, int pad);
	int (*set_signature_md)(void *ctx, const void *md);
	int (*sign)(void *ctx, unsigned char *sig, size_t *siglen, const unsigned char *tbs, size_t tbslen);
	const void *(*sha1)(void);
	const void *(*sha256)(void);
	void (*clear_error)(void);
} carteiro_libcrypto;

#define CARTEIRO_EVP_PKEY_RSA 6
#define CARTEIRO_RSA_PKCS1_PADDING 1

// carteiro_libcrypto_open loads name and resolves every symbol; NULL if any
// is missing. The library is never closed: unloading libcrypto while its
// thread-local state lives is unsafe, and a process opens it once.
static carteiro_libcrypto *carteiro_libcrypto_open(const char *name) {
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		return NULL;
	}
	carteiro_libcrypto *l = calloc(1, sizeof(carteiro_libcrypto));
	if (l == NULL) {
		return NULL;
	}
	l->handle = h;
	l->version_num = dlsym(h, "OpenSSL_version_num");
	l->d2i_private_key = dlsym(h, "d2i_PrivateKey");
	l->pkey_free = dlsym(h, "EVP_PKEY_free");
	l->ctx_new = dlsym(h, "EVP_PKEY_CTX_new");
	l->ctx_free = dlsym(h, "EVP_PKEY_CTX_free");
	l->sign_init = dlsym(h, "EVP_PKEY_sign_init");
	l->set_rsa_padding = dlsym(h, "EVP_PKEY_CTX_set_rsa_padding");
	l->set_signature_md = dlsym(h, "EVP_PKEY_CTX_set_signature_md");
	l->sign = dlsym(h, "EVP_PKEY_sign");
	l->sha1 = dlsym(h, "EVP_sha1");
	l->sha256 = dlsym(h, "EVP_sha256");
	l->clear_error = dlsym(h, "ERR_clear_error");
	if (!l->version_num || !l->d2i_private_key || !l->pkey_free || !l->ctx_new || !l->ctx_free ||
	    !l->sign_init || !l->set_rsa_padding || !l->set_signature_md || !l->sign || !l->sha1 ||
	    !l->sha256 || !l->clear_error) {
		free(l);
		return NULL;
	}
	return l;
}

static unsigned long carteiro_libcrypto_version(carteiro_libcrypto *l) {
	return l->version_num();
}

// carteiro_libcrypto_load_rsa parses a PKCS #1 RSAPrivateKey DER.
static void *carteiro_libcrypto_load_rsa(carteiro_libcrypto *l, const unsigned char *der, long len) {
	const unsigned char *p = der;
	void *pkey = l->d2i_private_key(CARTEIRO_EVP_PKEY_RSA, NULL, &p, len);
	if (pkey == NULL) {
		l->clear_error();
	}
	return pkey;
}

static void carteiro_libcrypto_free_key(carteiro_libcrypto *l, void *pkey) {
	l->pkey_free(pkey);
}

// carteiro_libcrypto_sign makes a PKCS #1 v1.5 signature of a SHA-1 or
// SHA-256 digest. Errors are cleared from this thread's queue before
// returning, since the next call may run on another thread.
static int carteiro_libcrypto_sign(carteiro_libcrypto *l, void *pkey, int use_sha1,
	const unsigned char *digest, size_t digest_len, unsigned char *sig, size_t *sig_len) {
	void *ctx = l->ctx_new(pkey, NULL);
	if (ctx == NULL) {
		l->clear_error();
		return 0;
	}
	int ok = l->sign_init(ctx) > 0
		&& l->set_rsa_padding(ctx, CARTEIRO_RSA_PKCS1_PADDING) > 0
		&& l->set_signature_md(ctx, use_sha1 ? l->sha1() : l->sha256()) > 0
		&& l->sign(ctx, sig, sig_len, digest, digest_len) > 0;
	l->ctx_free(ctx);
	if (!ok) {
		l->clear_error();
	}
	return ok;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// soname is the only libcrypto opened: OpenSSL 3's ABI.
const soname = "libcrypto.so.3"

// Library is an opened libcrypto. It is safe for concurrent use.
type Library struct {
	c *C.carteiro_libcrypto
	// Version is OpenSSL_version_num(), e.g. 0x30000130 for 3.0.19.
	Version uint64
}

// Open loads the system's libcrypto.so.3.
func Open() (*Library, error) {
	name := C.CString(soname)
	defer C.free(unsafe.Pointer(name))
	c := C.carteiro_libcrypto_open(name)
	if c == nil {
		return nil, fmt.Errorf("libcrypto: %s not found or lacks a needed function", soname)
	}
	v := uint64(C.carteiro_libcrypto_version(c))
	if v>>28 < 3 {
		return nil, fmt.Errorf("libcrypto: %s reports version %#x, want 3.x", soname, v)
	}
	return &Library{c: c, Version: v}, nil
}

// loadRSA turns a PKCS #1 DER private key into an EVP_PKEY.
func (l *Library) loadRSA(der []byte) (unsafe.Pointer, error) {
	if len(der) == 0 {
		return nil, errors.New("libcrypto: empty key")
	}
	pkey := C.carteiro_libcrypto_load_rsa(l.c, (*C.uchar)(unsafe.Pointer(&der[0])), C.long(len(der)))
	if pkey == nil {
		return nil, errors.New("libcrypto: d2i_PrivateKey refused the key")
	}
	return pkey, nil
}

func (l *Library) freeKey(pkey unsafe.Pointer) {
	C.carteiro_libcrypto_free_key(l.c, pkey)
}

// signPKCS1v15 signs digest (SHA-1 when sha1, else SHA-256) into sig, which
// must be the modulus size, and returns the signature's length.
func (l *Library) signPKCS1v15(pkey unsafe.Pointer, sha1 bool, digest, sig []byte) (int, error) {
	useSHA1 := C.int(0)
	if sha1 {
		useSHA1 = 1
	}
	n := C.size_t(len(sig))
	ok := C.carteiro_libcrypto_sign(l.c, pkey, useSHA1,
		(*C.uchar)(unsafe.Pointer(&digest[0])), C.size_t(len(digest)),
		(*C.uchar)(unsafe.Pointer(&sig[0])), &n)
	if ok == 0 {
		return 0, errors.New("libcrypto: EVP_PKEY_sign failed")
	}
	return int(n), nil
}
