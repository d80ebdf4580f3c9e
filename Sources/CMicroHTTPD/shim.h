#ifndef LIVELINE_CMICROHTTPD_SHIM_H
#define LIVELINE_CMICROHTTPD_SHIM_H
// libmicrohttpd 0.9.75 (Debian 12). Manual: https://www.gnu.org/software/libmicrohttpd/manual/
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_start_daemon is variadic. This wrapper passes the options LivelineHTTPServer uses.
// The daemon binds `address` (MHD_OPTION_SOCK_ADDR; port argument 0 so MHD reads the bound port
// back with getsockname). The accept policy lets the server refuse connections while it stops
// (instead of MHD_quiesce_daemon, whose epoll_ctl in 0.9.75 races with the worker threads').
// A thread pool size of 0 or 1 means "no pool": the option is left out, as MHD warns about 1.
// https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dconst.html
static inline struct MHD_Daemon *liveline_MHD_start_daemon(
    unsigned int flags,
    const struct sockaddr *address,
    MHD_AcceptPolicyCallback accept_policy, void *accept_policy_context,
    MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context,
    MHD_LogCallback logger, void *logger_context,
    unsigned int thread_pool_size,
    unsigned int connection_limit,
    unsigned int connection_timeout_seconds,
    size_t connection_memory_limit)
{
    struct MHD_OptionItem pool[] = {
        { thread_pool_size > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, (intptr_t)thread_pool_size, NULL },
        { MHD_OPTION_END, 0, NULL },
    };
    return MHD_start_daemon(flags, 0, accept_policy, accept_policy_context, handler, handler_context,
                            MHD_OPTION_EXTERNAL_LOGGER, logger, logger_context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
                            MHD_OPTION_ARRAY, pool,
                            MHD_OPTION_END);
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
