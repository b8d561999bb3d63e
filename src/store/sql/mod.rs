//! The one SQL interface the store functions use, over either backend: SQLite (rusqlite) or
//! PostgreSQL (the synchronous `postgres` client). It has the shape of the rusqlite calls the
//! store was written with — `prepare_cached(sql)?.query_row(params, |row| …)`, `execute`,
//! `query_map`, `exists`, `row.get(i)`, `.optional()` — so a store function is written once and
//! runs on both. Statements are written with numbered `?N` parameters, which PostgreSQL gets as
//! `$N`; where the dialects differ, the store function picks its text with `Conn::pick`.
//!
//! `value` binds parameters, `column` reads columns back, `pg_conn` holds the PostgreSQL
//! connection.

mod column;
mod pg_conn;
mod value;

use postgres::types::Type;
use rusqlite::types::ValueRef;

use self::column::pg_int;
pub use self::{
    column::{Column, ColumnIndex, FromColumn},
    pg_conn::PgConn,
    value::{Owned, Param, Params, Value, params},
};

/// A connection of either backend, borrowed for one read or one write job.
#[derive(Clone, Copy)]
pub enum Conn<'c> {
    Lite(&'c rusqlite::Connection),
    Pg(&'c PgConn),
}

/// A failed statement, or a column that did not hold what its reader expected.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("sqlite: {0}")]
    Lite(#[from] rusqlite::Error),
    #[error("postgres: {}", pg_message(.0))]
    Pg(#[from] postgres::Error),
    #[error("postgres: {} in {sql}", pg_message(.source))]
    Prepare {
        sql: String,
        source: postgres::Error,
    },
    #[error("column {0}: {1}")]
    Decode(usize, String),
    #[error("the query returned no rows")]
    NoRows,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Whether the statement broke a unique constraint (another row holds the key).
    pub fn is_unique_violation(&self) -> bool {
        match self {
            Error::Lite(rusqlite::Error::SqliteFailure(err, _)) => {
                err.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                    || err.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
            }
            Error::Pg(err) | Error::Prepare { source: err, .. } => {
                err.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION)
            }
            _ => false,
        }
    }
}

/// The server's own message (and code) of a PostgreSQL error, which its `Display` leaves out.
fn pg_message(err: &postgres::Error) -> String {
    match err.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => err.to_string(),
    }
}

/// `.optional()` on a `query_row`: no row is `None`, not an error.
pub trait OptionalExtension<T> {
    fn optional(self) -> Result<Option<T>>;
}

impl<T> OptionalExtension<T> for Result<T> {
    fn optional(self) -> Result<Option<T>> {
        match self {
            Ok(value) => Ok(Some(value)),
            Err(Error::NoRows | Error::Lite(rusqlite::Error::QueryReturnedNoRows)) => Ok(None),
            Err(err) => Err(err),
        }
    }
}

/// One row of a result.
pub enum Row<'r, 's> {
    Lite(&'r rusqlite::Row<'s>),
    Pg(&'r postgres::Row),
}

impl Row<'_, '_> {
    /// Column `idx` as whatever it holds.
    pub fn owned(&self, idx: usize) -> Result<Owned> {
        match self {
            Row::Lite(row) => Ok(match row.get_ref(idx)? {
                ValueRef::Null => Owned::Null,
                ValueRef::Integer(v) => Owned::Int(v),
                ValueRef::Real(v) => Owned::Real(v),
                ValueRef::Text(v) => Owned::Text(
                    String::from_utf8(v.to_vec()).map_err(|e| Error::Decode(idx, e.to_string()))?,
                ),
                ValueRef::Blob(v) => Owned::Blob(v.to_vec()),
            }),
            Row::Pg(row) => {
                let ty = row.columns().get(idx).map(|c| c.type_().clone());
                let owned = match ty {
                    Some(Type::BYTEA) => <Vec<u8> as FromColumn>::pg(row, idx)?.map(Owned::Blob),
                    Some(Type::FLOAT8 | Type::FLOAT4) => {
                        <f64 as FromColumn>::pg(row, idx)?.map(Owned::Real)
                    }
                    Some(Type::INT8 | Type::INT4 | Type::INT2 | Type::BOOL) => {
                        pg_int(row, idx)?.map(Owned::Int)
                    }
                    _ => <String as FromColumn>::pg(row, idx)?.map(Owned::Text),
                };
                Ok(owned.unwrap_or(Owned::Null))
            }
        }
    }

    /// The value of column `idx`.
    pub fn get<I: ColumnIndex, T: Column>(&self, idx: I) -> Result<T> {
        let idx = idx.index();
        match self {
            Row::Lite(row) => T::lite(row.get_ref(idx)?, idx),
            Row::Pg(row) => T::pg(row, idx),
        }
    }
}

/// A prepared statement.
pub enum Stmt<'c> {
    Lite(rusqlite::CachedStatement<'c>),
    Pg(&'c PgConn, postgres::Statement),
}

/// Rows mapped through a function, read as they are iterated.
pub struct Mapped<'s, F> {
    rows: Rows<'s>,
    f: F,
}

enum Rows<'s> {
    Lite(rusqlite::Rows<'s>),
    Pg(std::vec::IntoIter<postgres::Row>),
}

impl<T, F: FnMut(&Row) -> Result<T>> Iterator for Mapped<'_, F> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        match &mut self.rows {
            Rows::Lite(rows) => match rows.next() {
                Ok(Some(row)) => Some((self.f)(&Row::Lite(row))),
                Ok(None) => None,
                Err(err) => Some(Err(err.into())),
            },
            Rows::Pg(rows) => rows.next().map(|row| (self.f)(&Row::Pg(&row))),
        }
    }
}

impl Stmt<'_> {
    /// The names of the result's columns.
    pub fn column_names(&self) -> Vec<String> {
        match self {
            Stmt::Lite(stmt) => stmt.column_names().into_iter().map(String::from).collect(),
            Stmt::Pg(_, stmt) => stmt
                .columns()
                .iter()
                .map(|c| c.name().to_string())
                .collect(),
        }
    }

    /// The first row mapped through `f`; `Error::NoRows` when there is none.
    pub fn query_row<T>(
        &mut self,
        params: impl Params,
        f: impl FnOnce(&Row) -> Result<T>,
    ) -> Result<T> {
        let values = params.values();
        match self {
            Stmt::Lite(stmt) => {
                let mut rows = stmt.query(rusqlite::params_from_iter(values.iter()))?;
                match rows.next()? {
                    Some(row) => f(&Row::Lite(row)),
                    None => Err(Error::NoRows),
                }
            }
            Stmt::Pg(conn, stmt) => match conn.query(stmt, &values)?.first() {
                Some(row) => f(&Row::Pg(row)),
                None => Err(Error::NoRows),
            },
        }
    }

    /// Every row mapped through `f`.
    pub fn query_map<T, F: FnMut(&Row) -> Result<T>>(
        &mut self,
        params: impl Params,
        f: F,
    ) -> Result<Mapped<'_, F>> {
        let values = params.values();
        let rows = match self {
            Stmt::Lite(stmt) => Rows::Lite(stmt.query(rusqlite::params_from_iter(values.iter()))?),
            Stmt::Pg(conn, stmt) => Rows::Pg(conn.query(stmt, &values)?.into_iter()),
        };
        Ok(Mapped { rows, f })
    }

    /// Runs the statement; the number of rows it changed.
    pub fn execute(&mut self, params: impl Params) -> Result<usize> {
        let values = params.values();
        match self {
            Stmt::Lite(stmt) => Ok(stmt.execute(rusqlite::params_from_iter(values.iter()))?),
            Stmt::Pg(conn, stmt) => {
                let changed = conn.execute(stmt, &values)?;
                Ok(usize::try_from(changed).unwrap_or(usize::MAX))
            }
        }
    }

    /// Whether the query returns a row.
    pub fn exists(&mut self, params: impl Params) -> Result<bool> {
        self.query_row(params, |_| Ok(()))
            .optional()
            .map(|r| r.is_some())
    }
}

impl<'c> Conn<'c> {
    /// The statement for `sql`, parsed once per connection.
    pub fn prepare_cached(self, sql: &str) -> Result<Stmt<'c>> {
        match self {
            Conn::Lite(conn) => Ok(Stmt::Lite(conn.prepare_cached(sql)?)),
            Conn::Pg(conn) => Ok(Stmt::Pg(conn, conn.prepare(sql)?)),
        }
    }

    /// Runs one statement; the number of rows it changed.
    pub fn execute(self, sql: &str, params: impl Params) -> Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    /// The first row of one statement mapped through `f`.
    pub fn query_row<T>(
        self,
        sql: &str,
        params: impl Params,
        f: impl FnOnce(&Row) -> Result<T>,
    ) -> Result<T> {
        self.prepare_cached(sql)?.query_row(params, f)
    }

    /// Runs statements without parameters (and without caching them).
    pub fn execute_batch(self, sql: &str) -> Result<()> {
        match self {
            Conn::Lite(conn) => Ok(conn.execute_batch(sql)?),
            Conn::Pg(conn) => Ok(conn.client().batch_execute(sql)?),
        }
    }

    /// The statement text for this connection's dialect.
    pub fn pick(self, sqlite: &'static str, postgres: &'static str) -> &'static str {
        match self {
            Conn::Lite(_) => sqlite,
            Conn::Pg(_) => postgres,
        }
    }

    /// Whether this is a PostgreSQL connection.
    pub fn is_postgres(self) -> bool {
        matches!(self, Conn::Pg(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_reads_and_writes_through_the_interface() {
        let conn = rusqlite::Connection::open_in_memory().unwrap_or_else(|e| panic!("{e}"));
        let c = Conn::Lite(&conn);
        c.execute_batch("CREATE TABLE t (a TEXT, b INTEGER, c BLOB, d REAL)")
            .unwrap_or_else(|e| panic!("{e}"));
        let blob = vec![1u8, 2];
        let n = c
            .execute(
                "INSERT INTO t VALUES (?1, ?2, ?3, ?4)",
                params!["x", 7u32, blob, 1.5],
            )
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(n, 1);
        let none: Option<String> = None;
        c.execute(
            "INSERT INTO t VALUES (?1, ?2, NULL, NULL)",
            params![none, true],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let rows = c
            .prepare_cached("SELECT a, b, c, d FROM t ORDER BY b DESC")
            .and_then(|mut s| {
                s.query_map((), |r| {
                    Ok((
                        r.get::<_, Option<String>>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, Option<Vec<u8>>>(2)?,
                        r.get::<_, Option<f64>>(3)?,
                    ))
                })?
                .collect::<Result<Vec<_>>>()
            })
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            rows,
            [
                (Some("x".into()), 7, Some(vec![1, 2]), Some(1.5)),
                (None, 1, None, None)
            ]
        );
        let missing = c
            .query_row("SELECT a FROM t WHERE b = ?1", [99], |r| {
                r.get::<_, String>(0)
            })
            .optional()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(missing, None);
        let null = c.query_row("SELECT a FROM t WHERE b = 1", (), |r| r.get::<_, String>(0));
        assert!(matches!(null, Err(Error::Decode(0, _))), "{null:?}");
    }
}
