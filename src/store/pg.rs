//! The PostgreSQL backend (DESIGN §18): a pool of connections shared by reads and writes. A
//! write job is one transaction on one pooled connection, run on the blocking pool. Write
//! transactions take one advisory lock, so that they run one at a time across every process
//! sharing the database, exactly as SQLite's single writer runs them: no business rule needs a
//! second, concurrent-safe version. Reads run in parallel everywhere.

use std::{
    panic::{AssertUnwindSafe, catch_unwind},
    time::Duration,
};

use crate::{
    error::{Error, Result},
    store::{
        BeforeCommit, Plans, Reader, Tx,
        sql::{Conn, PgConn},
    },
};

mod embedded {
    refinery::embed_migrations!("migrations/postgres");
}

/// The advisory lock a write transaction holds: "shipbase" in ASCII.
const WRITER_LOCK: i64 = 0x7368_6970_6261_7365;

/// Opens `PgConn`s for the pool.
pub struct Manager {
    config: postgres::Config,
}

impl r2d2::ManageConnection for Manager {
    type Connection = PgConn;
    type Error = postgres::Error;

    fn connect(&self) -> std::result::Result<PgConn, postgres::Error> {
        Ok(PgConn::new(self.config.connect(postgres::NoTls)?))
    }

    fn is_valid(&self, conn: &mut PgConn) -> std::result::Result<(), postgres::Error> {
        conn.client().simple_query("").map(|_| ())
    }

    fn has_broken(&self, conn: &mut PgConn) -> bool {
        conn.is_closed()
    }
}

/// The pool, and what a write job needs besides a connection.
pub struct Pg {
    pool: r2d2::Pool<Manager>,
    plans: Plans,
    before_commit: BeforeCommit,
}

/// Parses a `postgres://` URL.
pub fn config(url: &str) -> Result<postgres::Config> {
    url.parse::<postgres::Config>()
        .map_err(|e| Error::Internal(format!("storage.url is not a PostgreSQL URL: {e}")))
}

/// Connects once and applies pending migrations; returns the versions applied.
pub fn migrate(url: &str) -> Result<Vec<String>> {
    let mut client = config(url)?
        .connect(postgres::NoTls)
        .map_err(|e| connect_error(url, e))?;
    let report = embedded::migrations::runner()
        .run(&mut client)
        .map_err(|e| Error::Internal(format!("migration failed: {e}")))?;
    Ok(report
        .applied_migrations()
        .iter()
        .map(|m| format!("V{}__{}", m.version(), m.name()))
        .collect())
}

/// The URL without its password, for messages.
pub fn redacted(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => match rest.rsplit_once('@') {
            Some((user, host)) => {
                let user = user.split(':').next().unwrap_or_default();
                format!("{scheme}://{user}@{host}")
            }
            None => url.to_string(),
        },
        None => "(not a URL)".to_string(),
    }
}

fn connect_error(url: &str, err: impl std::fmt::Display) -> Error {
    Error::Internal(format!(
        "cannot connect to PostgreSQL at {}: {err}",
        redacted(url)
    ))
}

impl Pg {
    /// Migrates the database and opens a pool of `connections`.
    pub fn open(
        url: &str,
        connections: u32,
        plans: Plans,
        before_commit: BeforeCommit,
    ) -> Result<Pg> {
        blocking(|| migrate(url))?;
        let pool = r2d2::Pool::builder()
            .max_size(connections.max(2))
            .min_idle(Some(1))
            .connection_timeout(Duration::from_secs(30))
            .test_on_check_out(false)
            .build(Manager {
                config: config(url)?,
            })
            .map_err(|e| connect_error(url, e))?;
        Ok(Pg {
            pool,
            plans,
            before_commit,
        })
    }

    /// Runs `f` on a pooled connection, on this thread.
    pub fn read<T>(&self, f: impl FnOnce(&Reader) -> Result<T>) -> Result<T> {
        let conn = self.pool.get()?;
        f(&Reader {
            conn: Conn::Pg(&conn),
        })
    }

    /// Runs a write job as one transaction on this thread; returns its value and the webhooks
    /// it queued deliveries for, after the commit.
    pub fn write<T>(&self, f: impl FnOnce(&Tx) -> Result<T>) -> Result<(T, Vec<String>)> {
        let conn = self.pool.get()?;
        let c = Conn::Pg(&conn);
        // One writer at a time across every process, as on SQLite: a job reads and then writes
        // (a split checks the units left, a create counts against the plan), and this keeps
        // every such rule exact without retrying jobs. Released by COMMIT or ROLLBACK.
        c.execute_batch(&format!(
            "BEGIN; SELECT pg_advisory_xact_lock({WRITER_LOCK})"
        ))?;
        let work = || {
            let tx = Tx::new(c, &self.plans);
            let value = f(&tx)?;
            (self.before_commit)(&tx)?;
            let queued = tx.flush()?;
            Ok((value, queued))
        };
        let outcome = catch_unwind(AssertUnwindSafe(work))
            .unwrap_or_else(|_| Err(Error::Internal("a write job panicked".into())));
        match outcome {
            Ok(done) => {
                c.execute_batch("COMMIT")?;
                Ok(done)
            }
            Err(err) => {
                // A connection whose rollback failed is broken: the pool drops it.
                let _ = c.execute_batch("ROLLBACK");
                Err(err)
            }
        }
    }
}

/// Runs blocking PostgreSQL work from wherever a point read is asked for: on a multi-threaded
/// runtime's worker the worker hands its other tasks off first (`block_in_place`); on a
/// current-thread runtime (unit tests) on a scoped thread, since the client blocks on its own
/// runtime and that cannot happen inside another.
pub fn blocking<T: Send>(f: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    match tokio::runtime::Handle::try_current() {
        Err(_) => f(),
        Ok(handle) => match handle.runtime_flavor() {
            tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
            _ => std::thread::scope(|s| {
                s.spawn(f)
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p))
            }),
        },
    }
}
