#include "mk_curl.h"

#if defined(__linux__) || defined(__ANDROID__)
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// The subset of curl.h used here. These values are part of libcurl's stable ABI.
typedef void CURL;
struct curl_slist;
typedef long long curl_off_t;
enum {
    MK_CURLOPT_WRITEDATA = 10001, MK_CURLOPT_URL = 10002, MK_CURLOPT_ERRORBUFFER = 10010,
    MK_CURLOPT_WRITEFUNCTION = 20011, MK_CURLOPT_POSTFIELDS = 10015, MK_CURLOPT_LOW_SPEED_LIMIT = 19,
    MK_CURLOPT_LOW_SPEED_TIME = 20, MK_CURLOPT_HTTPHEADER = 10023, MK_CURLOPT_HEADERDATA = 10029,
    MK_CURLOPT_CUSTOMREQUEST = 10036, MK_CURLOPT_NOPROGRESS = 43, MK_CURLOPT_NOBODY = 44,
    MK_CURLOPT_FOLLOWLOCATION = 52, MK_CURLOPT_CONNECTTIMEOUT = 78, MK_CURLOPT_HTTPGET = 80,
    MK_CURLOPT_HEADERFUNCTION = 20079, MK_CURLOPT_BUFFERSIZE = 98, MK_CURLOPT_NOSIGNAL = 99,
    MK_CURLOPT_POSTFIELDSIZE_LARGE = 30120, MK_CURLOPT_PROTOCOLS = 181, MK_CURLOPT_TCP_KEEPALIVE = 213,
    MK_CURLOPT_XFERINFODATA = 10057, MK_CURLOPT_XFERINFOFUNCTION = 20219, MK_CURLOPT_PROTOCOLS_STR = 10318,
    MK_CURLOPT_SUPPRESS_CONNECT_HEADERS = 265, MK_CURLOPT_PROXY = 10004, MK_CURLOPT_NOPROXY = 10177,
    MK_CURLOPT_CAINFO = 10065, MK_CURLOPT_CAPATH = 10097, MK_CURLOPT_CERTINFO = 172, MK_CURLOPT_CAINFO_BLOB = 40309,
    MK_CURLOPT_PROXY_CAINFO = 10246, MK_CURLOPT_PROXY_CAPATH = 10247, MK_CURLOPT_PROXY_CAINFO_BLOB = 40310,
};
struct mk_blob { void *data; size_t len; unsigned int flags; };
enum { MK_CURLINFO_CAINFO = 0x100000 + 61 };
enum { MK_CURLINFO_HTTP_CONNECTCODE = 0x200000 + 22, MK_CURLINFO_SSL_VERIFYRESULT = 0x200000 + 13,
       MK_CURLINFO_PROXY_SSL_VERIFYRESULT = 0x200000 + 47 };
enum { MK_CURLINFO_CERTINFO = 0x400000 + 34, MK_CURLE_PEER_FAILED_VERIFICATION = 60 };
struct mk_slist { char *data; struct mk_slist *next; };
struct mk_certinfo { int num_of_certs; struct mk_slist **certinfo; };
enum { MK_CURLPROTO_HTTP = 1, MK_CURLPROTO_HTTPS = 2, MK_CURL_GLOBAL_DEFAULT = 3 };

typedef int (*global_init_fn)(long);
typedef CURL *(*easy_init_fn)(void);
typedef void (*easy_cleanup_fn)(CURL *);
typedef void (*easy_reset_fn)(CURL *);
typedef int (*easy_setopt_fn)(CURL *, int, ...);
typedef int (*easy_perform_fn)(CURL *);
typedef const char *(*easy_strerror_fn)(int);
typedef int (*easy_getinfo_fn)(CURL *, int, ...);
typedef struct curl_slist *(*slist_append_fn)(struct curl_slist *, const char *);
typedef void (*slist_free_all_fn)(struct curl_slist *);
typedef const char *(*version_fn)(void);

static struct {
    global_init_fn global_init;
    easy_init_fn easy_init;
    easy_cleanup_fn easy_cleanup;
    easy_reset_fn easy_reset;
    easy_setopt_fn easy_setopt;
    easy_perform_fn easy_perform;
    easy_strerror_fn easy_strerror;
    easy_getinfo_fn easy_getinfo;
    slist_append_fn slist_append;
    slist_free_all_fn slist_free_all;
    version_fn version;
} api;
// Whether libcurl's TLS backend is OpenSSL, whose X509_V_ERR_* codes CURLINFO_SSL_VERIFYRESULT reports.
static int tls_backend_openssl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int loaded;

static void load(void) {
    const char *names[] = {"libcurl.so.4", "libcurl.so", "libcurl-gnutls.so.4", NULL};
    void *lib = NULL;
    for (int i = 0; names[i] && !lib; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) { snprintf(load_error, sizeof load_error, "libcurl could not be loaded (%s)", dlerror()); return; }
#define SYM(field, name) api.field = (typeof(api.field))dlsym(lib, name); \
    if (!api.field) { snprintf(load_error, sizeof load_error, "libcurl lacks %s", name); return; }
    SYM(global_init, "curl_global_init")
    SYM(easy_init, "curl_easy_init")
    SYM(easy_cleanup, "curl_easy_cleanup")
    SYM(easy_reset, "curl_easy_reset")
    SYM(easy_setopt, "curl_easy_setopt")
    SYM(easy_perform, "curl_easy_perform")
    SYM(easy_strerror, "curl_easy_strerror")
    SYM(easy_getinfo, "curl_easy_getinfo")
    SYM(slist_append, "curl_slist_append")
    SYM(slist_free_all, "curl_slist_free_all")
    SYM(version, "curl_version")
#undef SYM
    tls_backend_openssl = strstr(api.version(), "OpenSSL/") != NULL;
    if (api.global_init(MK_CURL_GLOBAL_DEFAULT) != 0) { snprintf(load_error, sizeof load_error, "curl_global_init failed"); return; }
    loaded = 1;
}

int mk_curl_load(char *error, size_t error_length) {
    pthread_once(&load_once, load);
    if (!loaded && error && error_length) snprintf(error, error_length, "%s", load_error);
    return loaded ? 0 : -1;
}

// A small pool of easy handles, so connections (and TLS sessions) are reused.
#define POOL_MAX 16
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static CURL *pool[POOL_MAX];
static int pool_count;

static CURL *acquire(void) {
    CURL *h = NULL;
    pthread_mutex_lock(&pool_lock);
    if (pool_count > 0) h = pool[--pool_count];
    pthread_mutex_unlock(&pool_lock);
    if (h) api.easy_reset(h); else h = api.easy_init();
    return h;
}

static void release(CURL *h, int reusable) {
    if (reusable) {
        pthread_mutex_lock(&pool_lock);
        if (pool_count < POOL_MAX) { pool[pool_count++] = h; h = NULL; }
        pthread_mutex_unlock(&pool_lock);
    }
    if (h) api.easy_cleanup(h);
}

struct trampoline {
    mk_curl_header_cb on_header;
    mk_curl_data_cb on_data;
    mk_curl_poll_cb poll;
    void *context;
};

static size_t header_trampoline(char *buffer, size_t size, size_t count, void *userdata) {
    struct trampoline *t = userdata;
    size_t n = size * count;
    return t->on_header(t->context, buffer, n) == 0 ? n : 0;
}

static size_t data_trampoline(char *buffer, size_t size, size_t count, void *userdata) {
    struct trampoline *t = userdata;
    return t->on_data(t->context, buffer, size * count);
}

static int poll_trampoline(void *userdata, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d) {
    (void)a; (void)b; (void)c; (void)d;
    struct trampoline *t = userdata;
    return t->poll ? t->poll(t->context) : 0;
}

// Trusted CAs, and certificate details kept so a name mismatch can say what the certificate is for.
// The same CAs verify an https:// proxy (the PROXY_ options), as the curl tool does with
// CURL_CA_BUNDLE: a TLS-inspecting corporate proxy usually has the corporate CA's certificate.
static void apply_tls(CURL *h, const mk_curl_tls *tls) {
    if (!tls) return;
    if (tls->ca_file) {
        api.easy_setopt(h, MK_CURLOPT_CAINFO, tls->ca_file);
        api.easy_setopt(h, MK_CURLOPT_PROXY_CAINFO, tls->ca_file);
    }
    if (tls->ca_path) {
        api.easy_setopt(h, MK_CURLOPT_CAPATH, tls->ca_path);
        api.easy_setopt(h, MK_CURLOPT_PROXY_CAPATH, tls->ca_path);
    }
    if (tls->ca_blob) {
        // Copied (CURL_BLOB_COPY): a pooled handle must not keep a pointer to the caller's
        // bytes. Older libcurl refuses the option and keeps ca_file.
        struct mk_blob blob = {(void *)tls->ca_blob, tls->ca_blob_length, 1};
        api.easy_setopt(h, MK_CURLOPT_CAINFO_BLOB, &blob);
        api.easy_setopt(h, MK_CURLOPT_PROXY_CAINFO_BLOB, &blob);
    }
    if (tls->peer_names && tls->peer_names_length) {
        tls->peer_names[0] = 0;
        api.easy_setopt(h, MK_CURLOPT_CERTINFO, 1L);
    }
}

// After a failed verification: the server certificate's subjectAltName (else its subject).
static void read_peer_names(CURL *h, const mk_curl_tls *tls) {
    if (!tls || !tls->peer_names || !tls->peer_names_length) return;
    struct mk_certinfo *info = NULL;
    if (api.easy_getinfo(h, MK_CURLINFO_CERTINFO, &info) != 0 || !info || info->num_of_certs < 1) return;
    const char *san = "X509v3 Subject Alternative Name:", *subject = "Subject:";
    const char *found = NULL;
    for (struct mk_slist *f = info->certinfo[0]; f; f = f->next) {
        if (strncmp(f->data, san, strlen(san)) == 0) { found = f->data + strlen(san); break; }
        if (!found && strncmp(f->data, subject, strlen(subject)) == 0) found = f->data + strlen(subject);
    }
    if (found) snprintf(tls->peer_names, tls->peer_names_length, "%s", found);
}

// After a failed verification: OpenSSL's verify result of the connection that failed, the
// server's or else an https proxy's (X509_V_ERR_CERT_NOT_YET_VALID 9, _CERT_HAS_EXPIRED 10,
// _HOSTNAME_MISMATCH 62, _IP_ADDRESS_MISMATCH 64, …; 0 when neither says); -1 when libcurl's TLS
// backend is not OpenSSL or does not say.
static void read_verify_result(CURL *h, mk_curl_tls *tls) {
    if (!tls) return;
    tls->verify_result = -1;
    long server = 0, proxy = 0;
    if (!tls_backend_openssl || api.easy_getinfo(h, MK_CURLINFO_SSL_VERIFYRESULT, &server) != 0) return;
    if (server == 0 && api.easy_getinfo(h, MK_CURLINFO_PROXY_SSL_VERIFYRESULT, &proxy) != 0) proxy = 0;
    tls->verify_result = server != 0 ? server : proxy;
}

int mk_curl_default_ca_file(char *file, size_t length) {
    if (mk_curl_load(NULL, 0) != 0 || !length) return -1;
    CURL *h = api.easy_init();
    if (!h) return -1;
    char *path = NULL;
    int ok = api.easy_getinfo(h, MK_CURLINFO_CAINFO, &path) == 0 && path && path[0];
    if (ok) snprintf(file, length, "%s", path);
    api.easy_cleanup(h);
    return ok ? 0 : -1;
}

int mk_curl_perform(const mk_curl_request *r, mk_curl_header_cb on_header, mk_curl_data_cb on_data,
                    mk_curl_poll_cb poll, void *context, char *error) {
    error[0] = 0;
    if (mk_curl_load(error, 256) != 0) return -1;
    CURL *h = acquire();
    if (!h) { snprintf(error, 256, "curl_easy_init failed"); return -1; }
    struct trampoline t = {on_header, on_data, poll, context};
    struct curl_slist *headers = NULL;
    for (size_t i = 0; i < r->header_count; i++) headers = api.slist_append(headers, r->headers[i]);
    if (r->has_body) headers = api.slist_append(headers, "Expect:");

    api.easy_setopt(h, MK_CURLOPT_ERRORBUFFER, error);
    api.easy_setopt(h, MK_CURLOPT_URL, r->url);
    api.easy_setopt(h, MK_CURLOPT_NOSIGNAL, 1L);
    api.easy_setopt(h, MK_CURLOPT_FOLLOWLOCATION, 0L);
    if (api.easy_setopt(h, MK_CURLOPT_PROTOCOLS_STR, "http,https") != 0)
        api.easy_setopt(h, MK_CURLOPT_PROTOCOLS, (long)(MK_CURLPROTO_HTTP | MK_CURLPROTO_HTTPS));
    api.easy_setopt(h, MK_CURLOPT_TCP_KEEPALIVE, 1L);
    // Behind an HTTPS proxy, never pass the proxy's CONNECT answer off as the server's.
    api.easy_setopt(h, MK_CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
    // The proxy is decided by the caller (ProxyEnvironment.swift): "" disables libcurl's own
    // reading of the environment, and an empty no-proxy list keeps it from applying no_proxy
    // a second time (CURLOPT_PROXY(3), CURLOPT_NOPROXY(3)).
    api.easy_setopt(h, MK_CURLOPT_PROXY, r->proxy ? r->proxy : "");
    api.easy_setopt(h, MK_CURLOPT_NOPROXY, "");
    // libcurl's receive buffer, one per connection: 256 KiB keeps a fast link's callbacks few
    // (each one is copied into the transport's 512 KiB chunks) and 16 connections under 4 MiB.
    api.easy_setopt(h, MK_CURLOPT_BUFFERSIZE, 256L * 1024L);
    api.easy_setopt(h, MK_CURLOPT_CONNECTTIMEOUT, r->connect_timeout_seconds);
    if (r->idle_timeout_seconds > 0) {
        api.easy_setopt(h, MK_CURLOPT_LOW_SPEED_LIMIT, 1L);
        api.easy_setopt(h, MK_CURLOPT_LOW_SPEED_TIME, r->idle_timeout_seconds);
    }
    api.easy_setopt(h, MK_CURLOPT_HTTPHEADER, headers);
    api.easy_setopt(h, MK_CURLOPT_HEADERFUNCTION, header_trampoline);
    api.easy_setopt(h, MK_CURLOPT_HEADERDATA, &t);
    api.easy_setopt(h, MK_CURLOPT_WRITEFUNCTION, data_trampoline);
    api.easy_setopt(h, MK_CURLOPT_WRITEDATA, &t);
    api.easy_setopt(h, MK_CURLOPT_NOPROGRESS, 0L);
    api.easy_setopt(h, MK_CURLOPT_XFERINFOFUNCTION, poll_trampoline);
    api.easy_setopt(h, MK_CURLOPT_XFERINFODATA, &t);
    if (strcmp(r->method, "GET") == 0) {
        api.easy_setopt(h, MK_CURLOPT_HTTPGET, 1L);
    } else if (strcmp(r->method, "HEAD") == 0) {
        api.easy_setopt(h, MK_CURLOPT_NOBODY, 1L);
    } else {
        api.easy_setopt(h, MK_CURLOPT_CUSTOMREQUEST, r->method);
    }
    if (r->has_body) {
        api.easy_setopt(h, MK_CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_length);
        api.easy_setopt(h, MK_CURLOPT_POSTFIELDS, r->body ? r->body : "");
    }
    apply_tls(h, r->tls);
    int code = api.easy_perform(h);
    if (code == MK_CURLE_PEER_FAILED_VERIFICATION) {
        read_peer_names(h, r->tls);
        read_verify_result(h, r->tls);
    }
    if (code != 0 && error[0] == 0) snprintf(error, 256, "%s", api.easy_strerror(code));
    if (r->proxy_connect_status) {
        long status = 0;
        *r->proxy_connect_status = api.easy_getinfo(h, MK_CURLINFO_HTTP_CONNECTCODE, &status) == 0 ? status : 0;
    }
    api.easy_setopt(h, MK_CURLOPT_HTTPHEADER, (struct curl_slist *)NULL);
    api.easy_setopt(h, MK_CURLOPT_ERRORBUFFER, (char *)NULL);
    api.slist_free_all(headers);
    release(h, code == 0);
    return code;
}

#else

int mk_curl_default_ca_file(char *file, size_t length) {
    (void)file; (void)length;
    return -1;
}

int mk_curl_load(char *error, size_t error_length) {
    if (error && error_length) error[0] = 0;
    return -1;
}

int mk_curl_perform(const mk_curl_request *r, mk_curl_header_cb on_header, mk_curl_data_cb on_data,
                    mk_curl_poll_cb poll, void *context, char *error) {
    (void)r; (void)on_header; (void)on_data; (void)poll; (void)context;
    error[0] = 0;
    return -1;
}

#endif
