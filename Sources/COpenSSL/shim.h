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
// LivelineHTTP2: SSL_CTX_set_mode / SSL_get_mode are macros over SSL_CTX_ctrl.
// https://www.openssl.org/docs/man3.0/man3/SSL_CTX_set_mode.html
static inline long liveline_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
// https://www.openssl.org/docs/man3.0/man3/SSL_CTX_set_options.html (TLS 1.2 renegotiation off)
static inline unsigned long liveline_SSL_CTX_set_options(SSL_CTX *ctx, unsigned long options) { return (unsigned long)SSL_CTX_set_options(ctx, options); }
// Constants defined as macro expressions Swift may not import.
static inline long liveline_SSL_MODE_ENABLE_PARTIAL_WRITE(void) { return SSL_MODE_ENABLE_PARTIAL_WRITE; }
static inline long liveline_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER(void) { return SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER; }
static inline long liveline_SSL_MODE_RELEASE_BUFFERS(void) { return SSL_MODE_RELEASE_BUFFERS; }
static inline unsigned long liveline_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline unsigned long liveline_SSL_OP_NO_COMPRESSION(void) { return SSL_OP_NO_COMPRESSION; }
// XN_FLAG_RFC2253 is a macro expression. https://www.openssl.org/docs/man3.0/man3/X509_NAME_print_ex.html
static inline unsigned long liveline_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }
// MBSTRING_UTF8 is a macro expression (X509_NAME_add_entry_by_txt picks the ASN.1 string type).
// https://www.openssl.org/docs/man3.0/man3/X509_NAME_add_entry_by_txt.html
static inline int liveline_MBSTRING_UTF8(void) { return MBSTRING_UTF8; }
#endif
