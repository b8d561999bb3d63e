//! The only SQL in the program: one writer thread and a pool of read connections, over one
//! SQLite file in WAL mode (the default) or a PostgreSQL database (`storage.url`, `pg.rs`;
//! DESIGN §18). Store functions are written once against `sql`, which runs them on either.
//! Reads run on the blocking pool, writes on the writer thread, never on a tokio worker. Every
//! org-owned query takes the org id first. Store functions take a `Reader` to read and a `Tx`
//! (the unit of work of one write) to write, so a write through a reader does not compile.

use std::{path::Path, sync::Arc};

use r2d2::Pool;
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, OpenFlags};

use crate::{
    config::Plan,
    error::{Error, Result},
};

pub mod api_tokens;
pub mod audit;
pub mod booking_attempts;
pub mod branding;
pub mod carriers;
mod checkpoint;
pub mod copy;
pub mod deliveries;
pub mod documents;
pub mod events;
pub mod idempotency;
pub mod manifests;
pub mod members;
pub mod notification_settings;
pub mod notifications;
pub mod oauth;
pub mod order_channels;
pub mod orders;
pub mod orgs;
pub mod pg;
pub mod pickups;
mod point;
pub mod printers;
pub mod returns_portals;
pub mod sender_addresses;
pub mod sessions;
pub mod shared_state;
pub mod shipment_terms;
pub mod shipments;
pub mod shipping_rules;
pub mod sql;
pub mod tracking_links;
mod tx;
#[cfg(test)]
mod upgrade_tests;
pub mod usage;
pub mod users;
pub mod webhooks;
mod writer;

pub use crate::model::page::{PageQuery, Paged};
pub use tx::{BeforeCommit, OrgPlan, Plans, TouchedOrder};

mod embedded {
    refinery::embed_migrations!("migrations/sqlite");
}

/// Handles to the database: cheap to clone.
#[derive(Clone)]
pub struct Db {
    writer: writer::Writer,
    reads: Reads,
    outbox: Arc<Outbox>,
}

/// Where reads go.
#[derive(Clone)]
enum Reads {
    Sqlite {
        readers: Pool<SqliteConnectionManager>,
        file: Arc<point::File>,
    },
    Postgres(Arc<pg::Pg>),
}

/// What the writer tells the delivery worker: which webhooks got new deliveries.
#[derive(Default)]
pub struct Outbox {
    queued: std::sync::Mutex<std::collections::HashSet<String>>,
    notify: tokio::sync::Notify,
}

impl Outbox {
    fn queued(&self, webhook_ids: Vec<String>) {
        self.lock().extend(webhook_ids);
        self.notify.notify_one();
    }

    /// The webhooks with new deliveries since the last call.
    pub fn take(&self) -> std::collections::HashSet<String> {
        std::mem::take(&mut *self.lock())
    }

    /// Resolves when deliveries were queued.
    pub async fn notified(&self) {
        self.notify.notified().await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
        self.queued.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A write job's unit of work (`tx.rs` has what it does): the connection, the plans, and the
/// side effects it collects for the writer to turn into rows before the job ends.
pub struct Tx<'c> {
    reader: Reader<'c>,
    plans: &'c Plans,
    effects: std::cell::RefCell<Effects>,
}

#[derive(Default)]
struct Effects {
    /// Each event with the webhooks it goes to.
    events: Vec<(crate::model::event::Event, Vec<String>)>,
    /// Webhooks with a delivery due that no event of the job queued (a replay).
    woken: Vec<String>,
    /// `(org, order)` → the time of the latest change that touched it.
    orders: std::collections::BTreeMap<(String, String), String>,
    /// The active webhooks of each organization the job emitted for, read once per job.
    subscribers: std::collections::HashMap<String, std::rc::Rc<Vec<webhooks::Subscriber>>>,
}

/// A connection to read through: a pooled read-only connection, or the writer's own inside a
/// `Tx` (which dereferences to one).
pub struct Reader<'c> {
    pub(in crate::store) conn: sql::Conn<'c>,
}

/// The page size of a new SQLite file, in bytes (a file keeps the size it was made with). With
/// 8 KiB a page holds three of a typical shipment's rows (~2.3 kB) instead of one, so a batch of
/// creates dirties, logs and checkpoints fewer pages (issue 30, tenth part, in
/// docs/decisions.md).
pub const PAGE_SIZE: u32 = 8192;

/// How the database is opened.
pub struct Options<'a> {
    /// The SQLite file (unless `url` is set).
    pub path: &'a Path,
    /// `postgres://…`: PostgreSQL instead of the SQLite file.
    pub url: Option<&'a str>,
    /// SQLite `synchronous`: `normal` or `full`.
    pub synchronous: &'a str,
    pub read_connections: u32,
    /// The configured plans, which a `Tx` looks an organization's limits up in.
    pub plans: Plans,
    /// Runs at the end of every write job, inside its unit of work.
    pub before_commit: BeforeCommit,
}

impl Db {
    /// Opens (creating when missing) the database, applies pending migrations, and builds the
    /// writer and the pool of read connections: on the SQLite file at `path`, or on the
    /// PostgreSQL database at `url` when one is given.
    pub fn open(options: Options) -> Result<Db> {
        let outbox = Arc::new(Outbox::default());
        if let Some(url) = options.url {
            let (pg, conn) = pg::Pg::open(url, options.read_connections + 8)?;
            let writer =
                writer::Writer::start(conn, options.plans, options.before_commit, outbox.clone())?;
            return Ok(Db {
                writer,
                reads: Reads::Postgres(Arc::new(pg)),
                outbox,
            });
        }
        let path = options.path;
        let sync = options.synchronous.to_ascii_uppercase();
        let pragmas = move |c: &Connection| -> rusqlite::Result<()> {
            c.set_prepared_statement_cache_capacity(point::STATEMENT_CACHE);
            point::stable_plans(c)?;
            c.execute_batch(&format!(
                "PRAGMA busy_timeout = 5000;
                 PRAGMA page_size = {PAGE_SIZE};
                 PRAGMA journal_mode = WAL;
                 PRAGMA foreign_keys = ON;
                 PRAGMA synchronous = {sync};
                 PRAGMA temp_store = MEMORY;
                 PRAGMA mmap_size = 0;"
            ))
        };
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = Connection::open_with_flags(path, flags).map_err(|e| open_error(path, e))?;
        pragmas(&conn).map_err(|e| open_error(path, e))?;
        migrate(&mut conn)?;
        let writer = writer::Writer::start(
            writer::WriteConn::Sqlite(conn),
            options.plans,
            options.before_commit,
            outbox.clone(),
        )?;
        // The writer made the file and its WAL; readers open it read-only. A SQLite connection
        // does not go stale like a network one: checking each one out with a query is waste.
        let readers = Pool::builder()
            .max_size(options.read_connections)
            .test_on_check_out(false)
            .build(
                SqliteConnectionManager::file(path)
                    .with_flags(OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
                    .with_init(point::reader_pragmas),
            )
            .map_err(|e| open_error(path, e))?;
        Ok(Db {
            writer,
            reads: Reads::Sqlite {
                readers,
                file: Arc::new(point::File::new(path)),
            },
            outbox,
        })
    }

    /// Whether this is a PostgreSQL database.
    pub fn is_postgres(&self) -> bool {
        matches!(self.reads, Reads::Postgres(_))
    }

    /// Tells, after each commit that queued webhook deliveries, for which webhooks.
    pub fn outbox(&self) -> Arc<Outbox> {
        self.outbox.clone()
    }

    /// Runs a point read (`f` looks rows up by key: microseconds of work) right here, on the
    /// calling thread's own read-only connection. Handing such a read to the blocking pool cost
    /// more than the read itself (two thread switches per read: about half the CPU of a GET under
    /// load). Anything that scans (lists, counts, exports) goes through `read`.
    /// On PostgreSQL the read is a round trip to the server, made without holding up the
    /// worker's other tasks (`pg::blocking`).
    pub fn point<T: Send>(&self, f: impl FnOnce(&Reader) -> Result<T> + Send) -> Result<T> {
        self.point_in(false, f)
    }

    /// `point`, with every statement of `f` reading one snapshot of the SQLite file (one read
    /// transaction: a resource and what is answered with it, such as a shipment and its
    /// documents, read consistently, and the log's read lock taken once). On PostgreSQL as
    /// `point`.
    pub fn point_snapshot<T: Send>(
        &self,
        f: impl FnOnce(&Reader) -> Result<T> + Send,
    ) -> Result<T> {
        self.point_in(true, f)
    }

    fn point_in<T: Send>(
        &self,
        snapshot: bool,
        f: impl FnOnce(&Reader) -> Result<T> + Send,
    ) -> Result<T> {
        match &self.reads {
            Reads::Sqlite { file, .. } => point::with(file, |conn| {
                point::run(conn, snapshot, |conn| {
                    f(&Reader {
                        conn: sql::Conn::Lite(conn),
                    })
                })
            }),
            Reads::Postgres(pg) => pg::blocking(|| pg.read(f)),
        }
    }

    /// Runs `f` on a read-only connection on the blocking pool, its statements reading one
    /// snapshot of the SQLite file (a list's page and its total agree).
    pub async fn read<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Reader) -> Result<T> + Send + 'static,
    {
        self.on_reader(true, f).await
    }

    /// `f` on a pooled read-only connection on the blocking pool; in one read transaction when
    /// `snapshot` (SQLite; PostgreSQL reads each statement's latest as before).
    async fn on_reader<T, F>(&self, snapshot: bool, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Reader) -> Result<T> + Send + 'static,
    {
        match &self.reads {
            Reads::Sqlite { readers, .. } => {
                let pool = readers.clone();
                crate::blocking::run(move || {
                    let conn = pool.get()?;
                    point::run(&conn, snapshot, |conn| {
                        f(&Reader {
                            conn: sql::Conn::Lite(conn),
                        })
                    })
                })
                .await
            }
            Reads::Postgres(pg) => {
                let pg = pg.clone();
                crate::blocking::run(move || pg.read(f)).await
            }
        }
    }

    /// Runs `f` as one all-or-nothing unit of work on the writer thread: its changes, and the
    /// events, order settlements and usage counts it collected on the `Tx`, commit when it
    /// returns Ok and vanish when it returns an error.
    pub async fn write<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Tx) -> Result<T> + Send + 'static,
    {
        self.writer.write(f).await
    }

    /// `write` of work that may run again on the same state to the same effect (it is `Fn`):
    /// at the head of the writer's batch it runs without a savepoint of its own, which is cheaper.
    pub async fn write_again<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&Tx) -> Result<T> + Send + 'static,
    {
        self.writer.write_again(f).await
    }

    /// Copies what the write-ahead log holds into the SQLite file and empties the log (nothing on
    /// PostgreSQL, which keeps its own).
    pub async fn checkpoint(&self) -> Result<()> {
        let Reads::Sqlite { file, .. } = &self.reads else {
            return Ok(());
        };
        let path = file.path.clone();
        crate::blocking::run(move || {
            let conn = Connection::open(&path).map_err(|e| open_error(&path, e))?;
            conn.execute_batch("PRAGMA busy_timeout = 5000; PRAGMA wal_checkpoint(TRUNCATE);")?;
            Ok(())
        })
        .await
    }

    /// Writes a consistent copy of the live database to `target` (which must not exist).
    pub async fn backup(&self, target: &Path) -> Result<()> {
        if self.is_postgres() {
            return Err(Error::InvalidState(
                "backup copies a SQLite file; back a PostgreSQL database up with pg_dump".into(),
            ));
        }
        let target = target.to_string_lossy().into_owned();
        // VACUUM INTO makes its own transaction: it cannot run inside one.
        self.on_reader(false, move |r| {
            r.conn.execute("VACUUM INTO ?1", [&target])?;
            Ok(())
        })
        .await
    }
}

/// Applies pending migrations; returns the versions applied.
pub fn migrate(conn: &mut Connection) -> Result<Vec<String>> {
    applied(embedded::migrations::runner().run(conn))
}

/// The names of the migrations a refinery run applied (either backend).
pub(crate) fn applied(
    run: std::result::Result<refinery::Report, refinery::Error>,
) -> Result<Vec<String>> {
    let report = run.map_err(|e| Error::Internal(format!("migration failed: {e}")))?;
    Ok(report
        .applied_migrations()
        .iter()
        .map(|m| format!("V{}__{}", m.version(), m.name()))
        .collect())
}

/// Opens the database file on a connection of its own and applies pending migrations; the
/// connection and the migrations applied.
pub fn open_migrated(path: &Path) -> Result<(Connection, Vec<String>)> {
    let mut conn = Connection::open(path).map_err(|e| open_error(path, e))?;
    conn.execute_batch(&format!(
        "PRAGMA busy_timeout = 5000; PRAGMA page_size = {PAGE_SIZE};
         PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;"
    ))
    .map_err(|e| open_error(path, e))?;
    let applied = migrate(&mut conn)?;
    Ok((conn, applied))
}

/// Opens the database file on its own connection and applies pending migrations.
pub fn migrate_file(path: &Path) -> Result<Vec<String>> {
    Ok(open_migrated(path)?.1)
}

fn open_error(path: &Path, err: impl std::fmt::Display) -> Error {
    Error::Internal(format!("cannot open database {}: {err}", path.display()))
}

/// Every database error is internal: a query that should have found a row and did not is a
/// bug, not a 404. Absence is expressed as `Option` or `bool` by the store functions.
impl From<sql::Error> for Error {
    fn from(err: sql::Error) -> Error {
        Error::Internal(err.to_string())
    }
}

impl From<rusqlite::Error> for Error {
    fn from(err: rusqlite::Error) -> Error {
        Error::from(sql::Error::from(err))
    }
}

impl From<r2d2::Error> for Error {
    fn from(err: r2d2::Error) -> Error {
        Error::Internal(format!("connection pool: {err}"))
    }
}

/// `SELECT COUNT(*) … WHERE org_id = ?1` as a u64.
/// One page of an organization's rows: all of `table`'s rows of the organization counted for the
/// total, and the page's items from `select` (its rows of the organization, `?1`, in the order it
/// ends with) read through `row`.
pub(crate) fn org_page<T>(
    db: &Reader,
    org_id: &str,
    page: PageQuery,
    table: &str,
    select: &str,
    row: impl FnMut(&sql::Row) -> sql::Result<T>,
) -> Result<Paged<T>> {
    let total = count(
        db,
        &format!("SELECT COUNT(*) FROM {table} WHERE org_id = ?1"),
        org_id,
    )?;
    let items = db
        .conn
        .prepare_cached(&format!("{select} LIMIT ?2 OFFSET ?3"))?
        .query_map(sql::params![org_id, page.limit, page.offset()], row)?
        .collect::<sql::Result<Vec<_>>>()?;
    Ok(Paged {
        items,
        total,
        query: page,
    })
}

pub(crate) fn count(db: &Reader, query: &str, org_id: &str) -> Result<u64> {
    let n: i64 = db
        .conn
        .prepare_cached(query)?
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
    row: &sql::Row,
    idx: usize,
) -> sql::Result<T> {
    let text: Option<String> = row.get(idx)?;
    serde_json::from_str(text.as_deref().unwrap_or("null"))
        .map_err(|e| sql::Error::Decode(idx, e.to_string()))
}

/// The plans of a configuration, shared with the writer.
pub fn plans(plans: &std::collections::BTreeMap<String, Plan>) -> Plans {
    Arc::new(plans.clone())
}

/// For a write to a row the job has just read: anything but one changed row is a bug (an
/// internal error), never a 404.
pub(crate) fn one_row(changed: usize, table: &str) -> Result<()> {
    if changed == 1 {
        Ok(())
    } else {
        Err(Error::Internal(format!(
            "expected to change one row of {table}, changed {changed}"
        )))
    }
}

/// Statuses are stored as their names.
macro_rules! text_column {
    ($($ty:ty),+) => {$(
        impl sql::Param for $ty {
            fn value(&self) -> sql::Value<'_> {
                sql::Value::Text(self.as_str())
            }
        }

        impl sql::FromColumn for $ty {
            fn lite(value: rusqlite::types::ValueRef<'_>, idx: usize) -> sql::Result<Option<Self>> {
                <String as sql::FromColumn>::lite(value, idx)?.map(|text| parse::<$ty>(&text, idx, <$ty>::parse)).transpose()
            }
            fn pg(row: &postgres::Row, idx: usize) -> sql::Result<Option<Self>> {
                <String as sql::FromColumn>::pg(row, idx)?.map(|text| parse::<$ty>(&text, idx, <$ty>::parse)).transpose()
            }
        }
    )+};
}

fn parse<T>(text: &str, idx: usize, parse: impl Fn(&str) -> Option<T>) -> sql::Result<T> {
    parse(text).ok_or_else(|| sql::Error::Decode(idx, format!("unknown value {text:?}")))
}

text_column!(
    crate::model::status::ShipmentStatus,
    crate::model::status::OrderStatus,
    crate::model::event::EventKind,
    crate::model::api_token::Origin,
    crate::model::role::Role,
    crate::model::audit::ActorKind,
    crate::model::booking::AttemptStatus,
    crate::model::pickup::PickupStatus
);
