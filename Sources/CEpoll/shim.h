#ifndef LIVELINE_CEPOLL_SHIM_H
#define LIVELINE_CEPOLL_SHIM_H
// Linux headers that Swift's Glibc module leaves out. Header-only: nothing to link.
// No _GNU_SOURCE here: it changes `fd_set` and clashes with the same headers in other modules
// (Dispatch, COpenSSL). accept4 is declared by hand instead.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <fcntl.h>
#include <unistd.h>
#include <pthread.h>
extern int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
static inline int liveline_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    return accept4(fd, addr, len, flags);
}
// Names the calling thread (15 bytes at most) so event-loop threads show in top/perf.
extern int pthread_setname_np(pthread_t thread, const char *name);
static inline int liveline_set_thread_name(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}
#endif
