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
    conn.execute_batch("PRAGMA busy_timeout = 5000; PRAGMA mmap_size = 0;")
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

fn open(path: &Path) -> Result<Connection> {
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| Error::Internal(format!("cannot open {}: {e}", path.display())))?;
    reader_pragmas(&mut conn)?;
    Ok(conn)
}
