#ifndef LIVELINE_CSQLITE_SHIM_H
#define LIVELINE_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro ((sqlite3_destructor_type)-1) that Swift does not import:
// SQLite copies the bytes before the bind call returns, so Swift buffers may be temporary.
// https://www.sqlite.org/c3ref/c_static.html
static inline sqlite3_destructor_type liveline_SQLITE_TRANSIENT(void) { return SQLITE_TRANSIENT; }

// Binds UTF-8 text of `n` bytes (NUL bytes inside are kept). A NULL pointer would bind SQL NULL,
// so an empty string binds "" explicitly. https://www.sqlite.org/c3ref/bind_blob.html
static inline int liveline_sqlite3_bind_text(sqlite3_stmt *stmt, int index, const char *text, sqlite3_uint64 n) {
    return sqlite3_bind_text64(stmt, index, n == 0 ? "" : text, n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

// Binds a blob of `n` bytes. A NULL pointer would bind SQL NULL, so an empty blob binds a
// zero-length blob instead. https://www.sqlite.org/c3ref/bind_blob.html
static inline int liveline_sqlite3_bind_blob(sqlite3_stmt *stmt, int index, const void *bytes, sqlite3_uint64 n) {
    if (n == 0) return sqlite3_bind_zeroblob(stmt, index, 0);
    return sqlite3_bind_blob64(stmt, index, bytes, n, SQLITE_TRANSIENT);
}

// sqlite3_db_config is variadic. Turns off double-quoted string literals in DML and DDL, so a
// misspelt "column" is an error instead of silently becoming a string.
// https://www.sqlite.org/quirks.html#dblquote and https://www.sqlite.org/c3ref/c_dbconfig_defensive.html
static inline int liveline_sqlite3_disable_double_quoted_strings(sqlite3 *db) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)0);
}
#endif
