#ifndef LIVELINE_COPENSSL_SHIM_H
#define LIVELINE_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/rand.h>
#include <openssl/bio.h>

// Macros Swift cannot call. https://www.openssl.org/docs/man3.0/man3/SSL_set_tlsext_host_name.html
static inline long liveline_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
// https://www.openssl.org/docs/man3.0/man3/SSL_CTX_set_min_proto_version.html
static inline int liveline_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline void liveline_OPENSSL_free(void *p) { OPENSSL_free(p); }
static inline long liveline_BIO_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }
#endif
