#ifndef MK_CURL_H
#define MK_CURL_H
// A minimal, header-free binding to libcurl's easy API, loaded with dlopen at run time.
// Linux only: on Apple platforms every function reports libcurl as unavailable.
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Which CA certificates verify the server (see CurlTransport+TLS.swift), and what the
/// certificate was valid for when it did not match the host.
typedef struct mk_curl_tls {
    /// CURLOPT_CAINFO: a PEM file of trusted CAs; NULL keeps libcurl's built-in default.
    const char *ca_file;
    /// CURLOPT_CAPATH: a hashed directory of trusted CAs; NULL keeps libcurl's built-in default.
    const char *ca_path;
    /// CURLOPT_CAINFO_BLOB (libcurl 7.77+): PEM text used instead of the CA file when libcurl
    /// takes it (`ca_file` stays the fallback); NULL for none. Not copied: valid for the call.
    const void *ca_blob;
    size_t ca_blob_length;
    /// Out: after CURLE_PEER_FAILED_VERIFICATION, the names in the server certificate
    /// (its subjectAltName, else its subject); empty when unknown.
    char *peer_names;
    size_t peer_names_length;
    /// Out: after CURLE_PEER_FAILED_VERIFICATION, OpenSSL's verify result of the server's (else the
    /// proxy's) connection (CURLINFO_[PROXY_]SSL_VERIFYRESULT: 9 not yet valid, 10 expired, 62/64 a
    /// name or address mismatch, …); -1 when unknown (another TLS backend).
    long verify_result;
} mk_curl_tls;

/// One request. Strings are NUL-terminated; headers are "Name: value" lines.
typedef struct mk_curl_request {
    const char *url;
    const char *method;
    const char *const *headers;
    size_t header_count;
    const void *body;
    size_t body_length;
    int has_body;
    long connect_timeout_seconds;
    long idle_timeout_seconds;
    /// CURLOPT_PROXY: the proxy URL, "" for none (libcurl then reads no environment variable).
    const char *proxy;
    /// Out (may be NULL): the proxy's status answering CONNECT, 0 when there was none.
    long *proxy_connect_status;
    /// Trusted CAs; NULL for libcurl's defaults.
    mk_curl_tls *tls;
} mk_curl_request;

/// Receives one raw header line (status lines included). Return 0 to continue.
typedef int (*mk_curl_header_cb)(void *context, const char *line, size_t length);
/// Receives body bytes. Return `length` to continue, anything else aborts.
typedef size_t (*mk_curl_data_cb)(void *context, const char *data, size_t length);
/// Polled about once a second and on progress. Return non-zero to abort (cancellation).
typedef int (*mk_curl_poll_cb)(void *context);

/// Writes libcurl's built-in CA file (CURLINFO_CAINFO, libcurl 7.84+) into `file`; returns 0,
/// or -1 when libcurl is unavailable, too old, or built without one.
int mk_curl_default_ca_file(char *file, size_t length);

/// Loads libcurl once. Returns 0 when available; otherwise writes a reason into `error`.
int mk_curl_load(char *error, size_t error_length);

/// Performs `request` synchronously on the calling thread with a pooled easy handle
/// (connections are kept alive between calls). Returns the CURLcode (0 on success) and writes
/// a message into `error` (at least 256 bytes) on failure.
int mk_curl_perform(const mk_curl_request *request, mk_curl_header_cb on_header, mk_curl_data_cb on_data,
                    mk_curl_poll_cb poll, void *context, char *error);

#ifdef __cplusplus
}
#endif
#endif
