//! The PostgreSQL backend (DESIGN §18): a pool of connections for reads, and the writer's own
//! connection. Writes go through the same single writer as on SQLite (`writer.rs`: group
//! commit, a savepoint per job), whose transactions take one advisory lock, so that they run
//! one at a time across every process sharing the database, exactly as SQLite's single writer
//! runs them: no business rule needs a second, concurrency-safe version. Reads run in parallel
//! everywhere.

use std::time::Duration;

use crate::{
    error::{Error, Result},
    store::{
        Reader,
        sql::{Conn, PgConn},
        writer::WriteConn,
    },
};

mod embedded {
    refinery::embed_migrations!("migrations/postgres");
}

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

/// The pool of read connections.
pub struct Pg {
    pool: r2d2::Pool<Manager>,
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
    /// Migrates the database, opens a pool of `connections` for reads, and the writer's
    /// connection.
    pub fn open(url: &str, connections: u32) -> Result<(Pg, WriteConn)> {
        blocking(|| migrate(url))?;
        let config = config(url)?;
        let pool = r2d2::Pool::builder()
            .max_size(connections.max(2))
            .min_idle(Some(1))
            .connection_timeout(Duration::from_secs(30))
            .test_on_check_out(false)
            .build(Manager {
                config: config.clone(),
            })
            .map_err(|e| connect_error(url, e))?;
        let redacted = redacted(url);
        let connect = move || {
            config
                .connect(postgres::NoTls)
                .map(PgConn::new)
                .map_err(|e| {
                    Error::Internal(format!("cannot connect to PostgreSQL at {redacted}: {e}"))
                })
        };
        let conn = blocking(&connect)?;
        Ok((
            Pg { pool },
            WriteConn::Postgres {
                conn: Box::new(conn),
                connect: Box::new(connect),
            },
        ))
    }

    /// Runs `f` on a pooled connection, on this thread.
    pub fn read<T>(&self, f: impl FnOnce(&Reader) -> Result<T>) -> Result<T> {
        let conn = self.pool.get()?;
        f(&Reader {
            conn: Conn::Pg(&conn),
        })
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
