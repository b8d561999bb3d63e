//! The only SQL in the program: one writer thread and a pool of readers over one SQLite file
//! in WAL mode. Reads run on the blocking pool, writes on the writer thread, never on a tokio
//! worker. Every org-owned query takes the org id first.

use std::path::Path;

use r2d2::Pool;
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, OpenFlags};

use crate::error::{Error, Result};

pub mod api_tokens;
pub mod carriers;
pub mod documents;
pub mod order_channels;
pub mod orders;
pub mod orgs;
pub mod sender_addresses;
pub mod shipments;
pub mod shipping_rules;
pub mod users;
mod writer;

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// Handles to the database: cheap to clone.
#[derive(Clone)]
pub struct Db {
    writer: writer::Writer,
    readers: Pool<SqliteConnectionManager>,
}

/// The connection of one write job, inside the writer's transaction. Every write of the
/// program passes through `Db::write`, the one place where events and usage counts hook in.
pub struct Tx<'c> {
    conn: &'c Connection,
}

impl std::ops::Deref for Tx<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn
    }
}

impl Db {
    /// Opens (creating when missing) `path`, applies pending migrations, and builds the pools.
    pub fn open(path: &Path, synchronous: &str, read_connections: u32) -> Result<Db> {
        let sync = synchronous.to_ascii_uppercase();
        let init = move |c: &mut Connection| -> rusqlite::Result<()> {
            c.execute_batch(&format!(
                "PRAGMA busy_timeout = 5000;
                 PRAGMA journal_mode = WAL;
                 PRAGMA foreign_keys = ON;
                 PRAGMA synchronous = {sync};
                 PRAGMA mmap_size = 268435456;"
            ))
        };
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let manager = || {
            SqliteConnectionManager::file(path)
                .with_flags(flags)
                .with_init(init.clone())
        };
        let mut conn = Connection::open_with_flags(path, flags).map_err(|e| open_error(path, e))?;
        init(&mut conn).map_err(|e| open_error(path, e))?;
        migrate(&mut conn)?;
        let writer = writer::Writer::start(conn)?;
        let readers = Pool::builder()
            .max_size(read_connections)
            .build(manager())
            .map_err(|e| open_error(path, e))?;
        Ok(Db { writer, readers })
    }

    /// Runs `f` on a reader connection on the blocking pool.
    pub async fn read<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T> + Send + 'static,
    {
        let pool = self.readers.clone();
        crate::blocking::run(move || {
            let conn = pool.get()?;
            f(&conn)
        })
        .await
    }

    /// Runs `f` as one all-or-nothing unit on the writer thread: its changes commit when it
    /// returns Ok and vanish when it returns an error.
    pub async fn write<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Tx) -> Result<T> + Send + 'static,
    {
        self.writer.write(f).await
    }

    /// Writes a consistent copy of the live database to `target` (which must not exist).
    pub async fn backup(&self, target: &Path) -> Result<()> {
        let target = target.to_string_lossy().into_owned();
        self.read(move |c| {
            c.execute("VACUUM INTO ?1", [&target])?;
            Ok(())
        })
        .await
    }
}

/// Applies pending migrations; returns the versions applied.
pub fn migrate(conn: &mut Connection) -> Result<Vec<String>> {
    let report = embedded::migrations::runner()
        .run(conn)
        .map_err(|e| Error::Internal(format!("migration failed: {e}")))?;
    Ok(report
        .applied_migrations()
        .iter()
        .map(|m| format!("V{}__{}", m.version(), m.name()))
        .collect())
}

/// Opens the database file on its own connection and applies pending migrations.
pub fn migrate_file(path: &Path) -> Result<Vec<String>> {
    let mut conn = Connection::open(path).map_err(|e| open_error(path, e))?;
    conn.execute_batch(
        "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;",
    )
    .map_err(|e| open_error(path, e))?;
    migrate(&mut conn)
}

fn open_error(path: &Path, err: impl std::fmt::Display) -> Error {
    Error::Internal(format!("cannot open database {}: {err}", path.display()))
}

/// Whether `err` is a UNIQUE constraint failure.
pub fn is_unique_violation(err: &rusqlite::Error) -> bool {
    matches!(err, rusqlite::Error::SqliteFailure(e, _) if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE)
}

/// `LIMIT`/`OFFSET` of a page.
#[derive(Clone, Copy, Debug)]
pub struct PageQuery {
    pub page: u32,
    pub limit: u32,
}

impl PageQuery {
    pub fn offset(self) -> i64 {
        i64::from(self.page - 1) * i64::from(self.limit)
    }
}

/// One page of rows, the total count, and the page that was asked for.
#[derive(Debug)]
pub struct Paged<T> {
    pub items: Vec<T>,
    pub total: u64,
    pub query: PageQuery,
}

impl<T> Paged<T> {
    /// The same page with each item converted.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Paged<U> {
        Paged {
            items: self.items.into_iter().map(f).collect(),
            total: self.total,
            query: self.query,
        }
    }

    /// The same page with each item converted (or the first error).
    pub fn try_map<U, E>(self, f: impl FnMut(T) -> Result<U, E>) -> Result<Paged<U>, E> {
        let items = self
            .items
            .into_iter()
            .map(f)
            .collect::<Result<Vec<_>, E>>()?;
        Ok(Paged {
            items,
            total: self.total,
            query: self.query,
        })
    }
}

/// `SELECT COUNT(*) … WHERE org_id = ?1` as a u64.
pub(crate) fn count(conn: &Connection, sql: &str, org_id: &str) -> Result<u64> {
    let n: i64 = conn
        .prepare_cached(sql)?
        .query_row([org_id], |r| r.get(0))?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// Serializes a value for a JSON column.
pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value)
        .map_err(|e| Error::Internal(format!("cannot encode JSON column: {e}")))
}

/// Reads a JSON column.
pub(crate) fn json_column<T: serde::de::DeserializeOwned>(
    row: &rusqlite::Row,
    idx: usize,
) -> rusqlite::Result<T> {
    let text: Option<String> = row.get(idx)?;
    serde_json::from_str(text.as_deref().unwrap_or("null")).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Text, Box::new(e))
    })
}
