#ifndef C_MANASHIKI_CRYPTO_H
#define C_MANASHIKI_CRYPTO_H
// OpenSSL's libcrypto, as installed by Debian's libssl-dev. Linux only. If this include fails:
// `apt-get install libssl-dev` (Debian, Ubuntu) or `dnf install openssl-devel` (Fedora, RHEL).
#include <openssl/sha.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/crypto.h>
// Public-key signature verification (PublicKey, SignatureEngine): d2i_PUBKEY, EVP_DigestVerify,
// RSASSA-PSS parameters.
#include <openssl/x509.h>
#include <openssl/rsa.h>
// Certificate path validation against pinned anchors (CertificateChainEngine): X509_STORE,
// X509_STORE_CTX, X509_verify_cert.
#include <openssl/x509_vfy.h>
#endif
