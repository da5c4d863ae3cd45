#include <sqlite3.h>

/* sqlite3_config is variadic, which Swift cannot call: this wraps the one use trove has.
   Without memory statistics SQLite takes no global mutex on every allocation. */
static inline int trove_sqlite3_disable_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
