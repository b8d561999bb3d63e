//! Columns: what `row.get(i)` reads back, from either backend.

use postgres::types::Type;
use rusqlite::types::ValueRef;

use super::{Error, Result};

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
pub(super) fn pg_int(row: &postgres::Row, idx: usize) -> Result<Option<i64>> {
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
