//! Point reads on the calling thread: each thread that asks keeps one read-only connection per
//! open database, made on first use and dropped with the thread (or once its database is
//! closed), so a lookup by key costs no thread switch and no pool lock.

use std::{
    cell::RefCell,
    path::{Path, PathBuf},
    sync::{Arc, Weak},
};

use rusqlite::{Connection, OpenFlags};

use crate::error::{Error, Result};

/// The database file point readers open; its `Arc` is the identity of one `Db`.
pub struct File {
    pub(in crate::store) path: PathBuf,
}

impl File {
    pub fn new(path: &Path) -> File {
        File {
            path: path.to_path_buf(),
        }
    }
}

thread_local! {
    static CONNECTIONS: RefCell<Vec<(Weak<File>, Connection)>> = const { RefCell::new(Vec::new()) };
}

/// Prepared statements each connection keeps. rusqlite's default of 16 is fewer than the
/// statements one request path runs (auth, the resource, its documents, the plan, counters…),
/// so the cache churned and statements were parsed again and again.
pub const STATEMENT_CACHE: usize = 128;

/// The pragmas (and statement cache) of every read-only connection. No memory-mapped reads
/// (`mmap_size` 0, as on the writer): every page of the file a mapping touched counted in the
/// server's resident memory (booking's benchmark row peaked at 110 MB, 46 MB of it the file's
/// pages, against 64 MB without), and reading through each connection's own page cache
/// (2 MB at most) was no slower in `benches/ab.py` (create, get, list and book).
pub fn reader_pragmas(conn: &mut Connection) -> rusqlite::Result<()> {
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    stable_plans(conn)?;
    conn.execute_batch("PRAGMA busy_timeout = 5000; PRAGMA mmap_size = 0;")
}

/// Plans that do not depend on the values bound (SQLite's query planner stability guarantee),
/// on every connection. Without it SQLite (3.48 on) reads a bound `LIMIT ?` while planning and
/// marks the statement to be planned again whenever that parameter is bound anew: every page of
/// every list was parsed and planned on each request despite the statement cache (11 % of the
/// workbench page's samples, `sqlite3Reprepare`). Nothing here profits from value-dependent
/// plans: no `sqlite_stat4` is gathered and no `LIKE` takes a bound pattern.
pub fn stable_plans(conn: &Connection) -> rusqlite::Result<()> {
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )
    .map(|_| ())
}

/// Runs `f` over this thread's read-only connection to `file`.
pub fn with<T>(file: &Arc<File>, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
    CONNECTIONS.with(|cell| {
        // A nested point read (none exists today) gets its own short-lived connection rather
        // than a second borrow.
        let Ok(mut connections) = cell.try_borrow_mut() else {
            return f(&open(&file.path)?);
        };
        let found = connections
            .iter()
            .position(|(owner, _)| std::ptr::eq(owner.as_ptr(), Arc::as_ptr(file)));
        let index = match found {
            Some(index) => index,
            None => {
                connections.retain(|(owner, _)| owner.strong_count() > 0);
                connections.push((Arc::downgrade(file), open(&file.path)?));
                connections.len() - 1
            }
        };
        f(&connections[index].1)
    })
}

/// Runs `f` on `conn` (a point reader or a pooled one), inside one read transaction when
/// `snapshot`: its statements then all read one snapshot, and the log's read lock is taken and
/// given back once instead of once per statement (each round of it locks the log index's mutex,
/// shared by every connection of the process, and often an `fcntl`: 6 to 18 % of a GET's
/// samples per transaction, `benches/profile_row.py get`). A transaction an earlier read could
/// not end is ended first.
pub fn run<T>(
    conn: &Connection,
    snapshot: bool,
    f: impl FnOnce(&Connection) -> Result<T>,
) -> Result<T> {
    /// Ends the transaction however `f` ends (an error or a panic included), so that no later
    /// read on this connection reads an old snapshot or holds the log back.
    struct End<'c>(&'c Connection);
    impl Drop for End<'_> {
        fn drop(&mut self) {
            if let Err(e) = end(self.0) {
                tracing::warn!(error = %e, "a read transaction did not end; the next read ends it");
            }
        }
    }
    end(conn)?;
    if !snapshot {
        return f(conn);
    }
    conn.prepare_cached("BEGIN")?.execute(())?;
    let _end = End(conn);
    f(conn)
}

/// Ends the read transaction `conn` is in, if any.
fn end(conn: &Connection) -> rusqlite::Result<()> {
    if !conn.is_autocommit() {
        conn.prepare_cached("COMMIT")?.execute(())?;
    }
    Ok(())
}

fn open(path: &Path) -> Result<Connection> {
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| Error::Internal(format!("cannot open {}: {e}", path.display())))?;
    reader_pragmas(&mut conn)?;
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use rusqlite::{Connection, StatementStatus};

    /// How often a page query (`LIMIT ? OFFSET ?`, as every list runs) was planned again over
    /// three executions with new values bound.
    fn replanned(conn: &Connection) -> i32 {
        let ok = |r: rusqlite::Result<()>| r.unwrap_or_else(|e| panic!("{e}"));
        ok(conn.execute_batch(
            "CREATE TABLE t (org TEXT, at TEXT); CREATE INDEX t_org ON t(org, at DESC);
             INSERT INTO t VALUES ('a', '1'), ('a', '2'), ('a', '3');",
        ));
        let sql = "SELECT at FROM t WHERE org = ?1 ORDER BY at DESC LIMIT ?2 OFFSET ?3";
        for (limit, offset) in [(2_i64, 0_i64), (2, 2), (1, 1)] {
            let mut stmt = conn.prepare_cached(sql).unwrap_or_else(|e| panic!("{e}"));
            let rows: Vec<String> = stmt
                .query_map(rusqlite::params!["a", limit, offset], |r| r.get(0))
                .and_then(|rows| rows.collect())
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(rows.len() as i64, limit.min(3 - offset));
        }
        let stmt = conn.prepare_cached(sql).unwrap_or_else(|e| panic!("{e}"));
        stmt.get_status(StatementStatus::RePrepare)
    }

    #[test]
    fn a_page_query_is_planned_once_whatever_its_limit() {
        let plain = Connection::open_in_memory().unwrap_or_else(|e| panic!("{e}"));
        // SQLite's own default: each new binding of the limit plans the statement again.
        assert!(
            replanned(&plain) >= 2,
            "SQLite no longer replans on a new LIMIT"
        );
        let mut ours = Connection::open_in_memory().unwrap_or_else(|e| panic!("{e}"));
        super::reader_pragmas(&mut ours).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(replanned(&ours), 0);
    }

    /// A write committed between two statements of one snapshot is not seen by the second; the
    /// snapshot ends with `f`, an error included, and the next read sees the write.
    #[test]
    fn statements_of_one_snapshot_read_the_same_data_and_it_ends_with_them() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("p.db");
        let writer = Connection::open(&path).unwrap_or_else(|e| panic!("{e}"));
        writer
            .execute_batch(
                "PRAGMA journal_mode = WAL; CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1);",
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let reader = super::open(&path).unwrap_or_else(|e| panic!("{e}"));
        let count = |conn: &Connection| -> i64 {
            conn.query_row("SELECT count(*) FROM t", (), |r| r.get(0))
                .unwrap_or_else(|e| panic!("{e}"))
        };
        let seen = super::run(&reader, true, |conn| {
            let first = count(conn);
            writer
                .execute("INSERT INTO t VALUES (2)", ())
                .unwrap_or_else(|e| panic!("{e}"));
            Ok((first, count(conn)))
        });
        assert_eq!(seen.ok(), Some((1, 1)));
        assert!(reader.is_autocommit());
        assert_eq!(count(&reader), 2);
        let failed: crate::error::Result<()> = super::run(&reader, true, |conn| {
            count(conn);
            Err(crate::error::Error::NotFound)
        });
        assert!(failed.is_err());
        assert!(reader.is_autocommit(), "the snapshot outlived its error");
    }
}
