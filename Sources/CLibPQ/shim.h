#ifndef LIVELINE_CLIBPQ_SHIM_H
#define LIVELINE_CLIBPQ_SHIM_H
#include <libpq-fe.h>

// PG_DIAG_* are character-literal macros ('C', 'M') that Swift does not import.
// https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-PQRESULTERRORFIELD
static inline char *liveline_PQresultSQLState(const PGresult *res) {
    return PQresultErrorField(res, PG_DIAG_SQLSTATE);
}

// The primary message alone: no "ERROR:  " prefix, and no DETAIL line (which quotes the values of
// a violated key, and values are never shown).
static inline char *liveline_PQresultPrimaryMessage(const PGresult *res) {
    return PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
}

// Notices (such as "relation already exists, skipping") would go to stderr by default.
// https://www.postgresql.org/docs/15/libpq-notice-processing.html
static void liveline_PQignoreNotice(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

static inline void liveline_PQsilenceNotices(PGconn *conn) {
    PQsetNoticeProcessor(conn, liveline_PQignoreNotice, (void *)0);
}
#endif
