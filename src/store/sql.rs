//! The one SQL interface the store functions use, over either backend: SQLite (rusqlite) or
//! PostgreSQL (the synchronous `postgres` client). It has the shape of the rusqlite calls the
//! store was written with — `prepare_cached(sql)?.query_row(params, |row| …)`, `execute`,
//! `query_map`, `exists`, `row.get(i)`, `.optional()` — so a store function is written once and
//! runs on both. Statements are written with numbered `?N` parameters, which PostgreSQL gets as
//! `$N`; where the dialects differ, the store function picks its text with `Conn::pick`.

use std::{cell::RefCell, collections::HashMap};

use postgres::types::{IsNull, ToSql as PgToSql, Type, to_sql_checked};
use rusqlite::types::{ToSqlOutput, ValueRef};

/// A connection of either backend, borrowed for one read or one write job.
#[derive(Clone, Copy)]
pub enum Conn<'c> {
    Lite(&'c rusqlite::Connection),
    Pg(&'c PgConn),
}

/// A PostgreSQL client and its prepared statements, by their text.
pub struct PgConn {
    /// Always `Some` but while being dropped.
    client: RefCell<Option<postgres::Client>>,
    statements: RefCell<HashMap<String, postgres::Statement>>,
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

/// The server's own message (and code) of a PostgreSQL error, which its `Display` leaves out.
fn pg_message(err: &postgres::Error) -> String {
    match err.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => err.to_string(),
    }
}

impl Error {
    /// Whether this is a UNIQUE constraint failure.
    pub fn is_unique_violation(&self) -> bool {
        match self {
            Error::Lite(rusqlite::Error::SqliteFailure(e, _)) => {
                e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
            }
            Error::Pg(e) => e.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION),
            _ => false,
        }
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

/// A value bound to a statement parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'a> {
    Null,
    Int(i64),
    Real(f64),
    Text(&'a str),
    Blob(&'a [u8]),
}

/// A value read whatever its column's type (copying whole tables).
#[derive(Clone, Debug, PartialEq)]
pub enum Owned {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl Param for Owned {
    fn value(&self) -> Value<'_> {
        match self {
            Owned::Null => Value::Null,
            Owned::Int(v) => Value::Int(*v),
            Owned::Real(v) => Value::Real(*v),
            Owned::Text(v) => Value::Text(v),
            Owned::Blob(v) => Value::Blob(v),
        }
    }
}

/// What can be bound to a parameter.
pub trait Param {
    fn value(&self) -> Value<'_>;
}

/// `params![a, b, …]`: parameters of different types, as one slice.
#[macro_export]
macro_rules! sql_params {
    ($($p:expr),* $(,)?) => {
        &[$(&$p as &dyn $crate::store::sql::Param),*] as &[&dyn $crate::store::sql::Param]
    };
}
pub use crate::sql_params as params;

/// The parameters of one statement.
pub trait Params {
    fn values(&self) -> Vec<Value<'_>>;
}

impl Params for () {
    fn values(&self) -> Vec<Value<'_>> {
        Vec::new()
    }
}

impl<T: Param, const N: usize> Params for [T; N] {
    fn values(&self) -> Vec<Value<'_>> {
        self.iter().map(Param::value).collect()
    }
}

impl Params for &[&dyn Param] {
    fn values(&self) -> Vec<Value<'_>> {
        self.iter().map(|p| p.value()).collect()
    }
}

impl<T: Param + ?Sized> Param for &T {
    fn value(&self) -> Value<'_> {
        (**self).value()
    }
}

impl<T: Param> Param for Option<T> {
    fn value(&self) -> Value<'_> {
        self.as_ref().map_or(Value::Null, Param::value)
    }
}

impl Param for str {
    fn value(&self) -> Value<'_> {
        Value::Text(self)
    }
}

impl Param for String {
    fn value(&self) -> Value<'_> {
        Value::Text(self)
    }
}

impl Param for [u8] {
    fn value(&self) -> Value<'_> {
        Value::Blob(self)
    }
}

impl Param for Vec<u8> {
    fn value(&self) -> Value<'_> {
        Value::Blob(self)
    }
}

impl<const N: usize> Param for [u8; N] {
    fn value(&self) -> Value<'_> {
        Value::Blob(self)
    }
}

impl Param for bool {
    fn value(&self) -> Value<'_> {
        Value::Int(i64::from(*self))
    }
}

impl Param for f64 {
    fn value(&self) -> Value<'_> {
        Value::Real(*self)
    }
}

macro_rules! int_param {
    ($($ty:ty),+) => {$(
        impl Param for $ty {
            fn value(&self) -> Value<'_> {
                Value::Int(i64::try_from(*self).unwrap_or(i64::MAX))
            }
        }
    )+};
}
int_param!(i64, i32, u16, u32, u64, usize);

impl rusqlite::ToSql for Value<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match *self {
            Value::Null => ValueRef::Null,
            Value::Int(v) => ValueRef::Integer(v),
            Value::Real(v) => ValueRef::Real(v),
            Value::Text(v) => ValueRef::Text(v.as_bytes()),
            Value::Blob(v) => ValueRef::Blob(v),
        }))
    }
}

type BoxError = Box<dyn std::error::Error + Sync + Send>;

impl PgToSql for Value<'_> {
    /// Sends the value as the type PostgreSQL inferred for the parameter: the schema keeps
    /// SQLite's storage classes (BIGINT, DOUBLE PRECISION, TEXT, BYTEA), and a flag compared
    /// with a boolean expression is sent as one.
    fn to_sql(&self, ty: &Type, out: &mut bytes::BytesMut) -> Result<IsNull, BoxError> {
        match *self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(v) => match *ty {
                Type::INT8 => v.to_sql(ty, out),
                Type::INT4 => i32::try_from(v)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(v)?.to_sql(ty, out),
                Type::BOOL => (v != 0).to_sql(ty, out),
                Type::FLOAT8 => (v as f64).to_sql(ty, out),
                Type::TEXT | Type::VARCHAR => v.to_string().to_sql(ty, out),
                _ => Err(format!("cannot send an integer as {ty}").into()),
            },
            Value::Real(v) => match *ty {
                Type::FLOAT8 => v.to_sql(ty, out),
                Type::FLOAT4 => (v as f32).to_sql(ty, out),
                _ => Err(format!("cannot send a real number as {ty}").into()),
            },
            Value::Text(v) => v.to_sql(ty, out),
            Value::Blob(v) => v.to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// A column value read back.
pub trait FromColumn: Sized {
    /// From SQLite; `None` for NULL.
    fn lite(value: ValueRef<'_>, idx: usize) -> Result<Option<Self>>;
    /// From PostgreSQL; `None` for NULL.
    fn pg(row: &postgres::Row, idx: usize) -> Result<Option<Self>>;
}

/// What `row.get(i)` reads: a value, or an `Option` of one for a nullable column.
pub trait Column: Sized {
    fn lite(value: ValueRef<'_>, idx: usize) -> Result<Self>;
    fn pg(row: &postgres::Row, idx: usize) -> Result<Self>;
}

impl<T: FromColumn> Column for T {
    fn lite(value: ValueRef<'_>, idx: usize) -> Result<T> {
        T::lite(value, idx)?.ok_or_else(|| Error::Decode(idx, "unexpected NULL".into()))
    }
    fn pg(row: &postgres::Row, idx: usize) -> Result<T> {
        T::pg(row, idx)?.ok_or_else(|| Error::Decode(idx, "unexpected NULL".into()))
    }
}

impl<T: FromColumn> Column for Option<T> {
    fn lite(value: ValueRef<'_>, idx: usize) -> Result<Option<T>> {
        T::lite(value, idx)
    }
    fn pg(row: &postgres::Row, idx: usize) -> Result<Option<T>> {
        T::pg(row, idx)
    }
}

/// Reads a SQLite value with rusqlite's own conversion.
fn lite_value<T: rusqlite::types::FromSql>(value: ValueRef<'_>, idx: usize) -> Result<Option<T>> {
    if value == ValueRef::Null {
        return Ok(None);
    }
    T::column_result(value)
        .map(Some)
        .map_err(|e| Error::Decode(idx, e.to_string()))
}

fn pg_value<'r, T: postgres::types::FromSql<'r>>(
    row: &'r postgres::Row,
    idx: usize,
) -> Result<Option<T>> {
    row.try_get::<_, Option<T>>(idx)
        .map_err(|e| Error::Decode(idx, e.to_string()))
}

/// An integer column of PostgreSQL, whatever its width (COUNT is BIGINT, EXISTS is BOOLEAN).
fn pg_int(row: &postgres::Row, idx: usize) -> Result<Option<i64>> {
    let ty = row
        .columns()
        .get(idx)
        .map(|c| c.type_().clone())
        .ok_or_else(|| Error::Decode(idx, "no such column".into()))?;
    match ty {
        Type::INT8 => pg_value::<i64>(row, idx),
        Type::INT4 => Ok(pg_value::<i32>(row, idx)?.map(i64::from)),
        Type::INT2 => Ok(pg_value::<i16>(row, idx)?.map(i64::from)),
        Type::BOOL => Ok(pg_value::<bool>(row, idx)?.map(i64::from)),
        other => Err(Error::Decode(idx, format!("{other} is not an integer"))),
    }
}

impl FromColumn for String {
    fn lite(value: ValueRef<'_>, idx: usize) -> Result<Option<String>> {
        lite_value(value, idx)
    }
    fn pg(row: &postgres::Row, idx: usize) -> Result<Option<String>> {
        pg_value(row, idx)
    }
}

impl FromColumn for Vec<u8> {
    fn lite(value: ValueRef<'_>, idx: usize) -> Result<Option<Vec<u8>>> {
        lite_value(value, idx)
    }
    fn pg(row: &postgres::Row, idx: usize) -> Result<Option<Vec<u8>>> {
        pg_value(row, idx)
    }
}

impl FromColumn for f64 {
    fn lite(value: ValueRef<'_>, idx: usize) -> Result<Option<f64>> {
        lite_value(value, idx)
    }
    fn pg(row: &postgres::Row, idx: usize) -> Result<Option<f64>> {
        match row.columns().get(idx).map(|c| c.type_()) {
            Some(&Type::FLOAT8) => pg_value(row, idx),
            Some(&Type::FLOAT4) => Ok(pg_value::<f32>(row, idx)?.map(f64::from)),
            _ => Ok(pg_int(row, idx)?.map(|v| v as f64)),
        }
    }
}

impl FromColumn for bool {
    fn lite(value: ValueRef<'_>, idx: usize) -> Result<Option<bool>> {
        lite_value(value, idx)
    }
    fn pg(row: &postgres::Row, idx: usize) -> Result<Option<bool>> {
        Ok(pg_int(row, idx)?.map(|v| v != 0))
    }
}

fn narrow<T: TryFrom<i64>>(value: Option<i64>, idx: usize) -> Result<Option<T>>
where
    T::Error: std::fmt::Display,
{
    value
        .map(|v| T::try_from(v).map_err(|e| Error::Decode(idx, e.to_string())))
        .transpose()
}

macro_rules! int_column {
    ($($ty:ty),+) => {$(
        impl FromColumn for $ty {
            fn lite(value: ValueRef<'_>, idx: usize) -> Result<Option<$ty>> {
                narrow(lite_value::<i64>(value, idx)?, idx)
            }
            fn pg(row: &postgres::Row, idx: usize) -> Result<Option<$ty>> {
                narrow(pg_int(row, idx)?, idx)
            }
        }
    )+};
}
int_column!(i64, i32, u16, u32, u64, usize);

/// A column position (store functions read columns by position).
pub trait ColumnIndex {
    fn index(&self) -> usize;
}

impl ColumnIndex for usize {
    fn index(&self) -> usize {
        *self
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

impl PgConn {
    pub fn new(client: postgres::Client) -> PgConn {
        PgConn {
            client: RefCell::new(Some(client)),
            statements: RefCell::default(),
        }
    }

    /// The client itself, for what the statement interface does not cover.
    pub fn client(&self) -> std::cell::RefMut<'_, postgres::Client> {
        std::cell::RefMut::map(self.client.borrow_mut(), |c| {
            c.as_mut()
                .unwrap_or_else(|| unreachable!("the client is there until drop"))
        })
    }

    fn prepare(&self, sql: &str) -> Result<postgres::Statement> {
        if let Some(stmt) = self.statements.borrow().get(sql) {
            return Ok(stmt.clone());
        }
        let stmt = self
            .client()
            .prepare(&numbered(sql))
            .map_err(|source| Error::Prepare {
                sql: sql.split_whitespace().collect::<Vec<_>>().join(" "),
                source,
            })?;
        self.statements
            .borrow_mut()
            .insert(sql.to_string(), stmt.clone());
        Ok(stmt)
    }

    fn query(&self, stmt: &postgres::Statement, values: &[Value]) -> Result<Vec<postgres::Row>> {
        let params: Vec<&(dyn PgToSql + Sync)> =
            values.iter().map(|v| v as &(dyn PgToSql + Sync)).collect();
        Ok(self.client().query(stmt, &params)?)
    }

    fn execute(&self, stmt: &postgres::Statement, values: &[Value]) -> Result<u64> {
        let params: Vec<&(dyn PgToSql + Sync)> =
            values.iter().map(|v| v as &(dyn PgToSql + Sync)).collect();
        Ok(self.client().execute(stmt, &params)?)
    }

    /// Whether the connection is closed (a pool drops it then).
    pub fn is_closed(&self) -> bool {
        self.client().is_closed()
    }
}

impl Drop for PgConn {
    /// Closing the client blocks on its own runtime, which cannot happen on a thread that
    /// drives another (a pool dropped inside async code): it is closed on a thread of its own.
    fn drop(&mut self) {
        let client = self.client.get_mut().take();
        if let Some(client) = client
            && tokio::runtime::Handle::try_current().is_ok()
        {
            let _ = std::thread::Builder::new()
                .name("shipbase-pg-close".into())
                .spawn(move || drop(client));
        }
    }
}

/// `?N` parameters as PostgreSQL's `$N`, and bare `?`s numbered in order, outside quoted text.
fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut quoted = false;
    let mut bare = 0;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = !quoted;
                out.push(c);
            }
            '?' if !quoted => {
                out.push('$');
                if !chars.peek().is_some_and(char::is_ascii_digit) {
                    bare += 1;
                    out.push_str(&bare.to_string());
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_numbered_for_postgres_outside_quotes() {
        assert_eq!(
            numbered("SELECT a FROM t WHERE b = ?1 AND c = '?2' AND d IN (?2, ?10)"),
            "SELECT a FROM t WHERE b = $1 AND c = '?2' AND d IN ($2, $10)"
        );
        assert_eq!(
            numbered("SELECT a FROM t WHERE b = ? AND c = ?"),
            "SELECT a FROM t WHERE b = $1 AND c = $2"
        );
    }

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
