#ifndef LIVELINE_CMICROHTTPD_SHIM_H
#define LIVELINE_CMICROHTTPD_SHIM_H
// libmicrohttpd 0.9.75 (Debian 12). Manual: https://www.gnu.org/software/libmicrohttpd/manual/
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// libmicrohttpd's `MHD_OPTION_URI_LOG_CALLBACK`: called with the request target exactly as it came
// (before the query is split off and percent-escapes decoded); what it returns becomes the request's
// context (`*req_cls`) in the access handler and the completion callback.
typedef void *(*liveline_MHD_UriLogCallback)(void *cls, const char *uri, struct MHD_Connection *connection);

// What LivelineHTTPServer passes to MHD_start_daemon beside the flags and the two main callbacks.
struct liveline_MHD_options {
    const struct sockaddr *address;
    MHD_RequestCompletedCallback completed; void *completed_context;
    MHD_LogCallback logger; void *logger_context;
    liveline_MHD_UriLogCallback uri_log; void *uri_log_context;
    MHD_NotifyConnectionCallback notify_connection; void *notify_connection_context;
    unsigned int thread_pool_size;
    unsigned int connection_limit;
    unsigned int per_ip_connection_limit;     // 0: none
    unsigned int connection_timeout_seconds;  // 0: none
    size_t connection_memory_limit;
    const char *tls_key_pem;                  // both NULL: plain HTTP (needs MHD_USE_TLS in flags otherwise)
    const char *tls_certificate_pem;
};

// MHD_start_daemon is variadic. This wrapper passes the options LivelineHTTPServer uses.
// The daemon binds `address` (MHD_OPTION_SOCK_ADDR; port argument 0 so MHD reads the bound port
// back with getsockname). The accept policy lets the server refuse connections while it stops
// (instead of MHD_quiesce_daemon, whose epoll_ctl in 0.9.75 races with the worker threads').
// A thread pool size of 0 or 1 means "no pool": the option is left out, as MHD warns about 1.
// Optional options (per-address limit, TLS) are left out when unset.
// https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dconst.html
static inline struct MHD_Daemon *liveline_MHD_start_daemon(
    unsigned int flags,
    MHD_AcceptPolicyCallback accept_policy, void *accept_policy_context,
    MHD_AccessHandlerCallback handler, void *handler_context,
    const struct liveline_MHD_options *o)
{
    // MHD_OPTION_ARRAY stops at its first MHD_OPTION_END: the options that apply are packed first.
    struct MHD_OptionItem optional[5];
    int next = 0;
    if (o->thread_pool_size > 1) {
        optional[next++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)o->thread_pool_size, NULL };
    }
    if (o->per_ip_connection_limit > 0) {
        optional[next++] = (struct MHD_OptionItem){ MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)o->per_ip_connection_limit, NULL };
    }
    if (o->tls_key_pem != NULL && o->tls_certificate_pem != NULL) {
        optional[next++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)o->tls_key_pem };
        optional[next++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)o->tls_certificate_pem };
    }
    optional[next] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
    return MHD_start_daemon(flags, 0, accept_policy, accept_policy_context, handler, handler_context,
                            MHD_OPTION_EXTERNAL_LOGGER, o->logger, o->logger_context,
                            MHD_OPTION_SOCK_ADDR, o->address,
                            MHD_OPTION_NOTIFY_COMPLETED, o->completed, o->completed_context,
                            MHD_OPTION_URI_LOG_CALLBACK, o->uri_log, o->uri_log_context,
                            MHD_OPTION_NOTIFY_CONNECTION, o->notify_connection, o->notify_connection_context,
                            MHD_OPTION_CONNECTION_LIMIT, o->connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, o->connection_timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, o->connection_memory_limit,
                            MHD_OPTION_ARRAY, optional,
                            MHD_OPTION_END);
}

// Whether this libmicrohttpd was built with HTTPS (GnuTLS).
static inline int liveline_MHD_supports_tls(void) {
    return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}

// MHD_get_connection_info is variadic. The size of the request line and headers, including the
// empty line that ends them; 0 before the headers are complete.
static inline size_t liveline_MHD_request_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

// MHD_get_connection_info is variadic. The connection's socket, or -1.
static inline int liveline_MHD_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}

// MHD_get_daemon_info is variadic. MHD_DAEMON_INFO_BIND_PORT exists since 0.9.71.
// https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dinfo-daemon.html
static inline int liveline_MHD_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? -1 : (int)info->port;
}

// MHD_get_connection_info is variadic. The peer's address (struct sockaddr_in or _in6).
// https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dinfo-conn.html
static inline const struct sockaddr *liveline_MHD_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

#endif
