// Package libcrypto signs with RSA through the system's OpenSSL 3 libcrypto,
// loaded at run time with dlopen.
//
// Why: DKIM signing is most of the CPU that delivering an email costs. Go's
// crypto/rsa signs an RSA-2048 digest in about 1.1 ms on the 2-core machines
// this project is measured on, while libcrypto does it in about 0.25 ms
// (docs/benchmarks.md). Both are constant-time implementations of the same
// deterministic PKCS #1 v1.5 signature, so the bytes are identical.
//
// The library is opened, not linked: building needs only a C compiler and no
// OpenSSL headers, and a binary runs (with Go's crypto/rsa) on a machine
// without libcrypto.so.3. Without cgo, Open always fails and callers keep Go's
// signer.
package libcrypto
