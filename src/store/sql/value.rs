//! Parameters: what a store function binds, as one small enum both backends take.

use postgres::types::{IsNull, ToSql as PgToSql, Type, to_sql_checked};
use rusqlite::types::{ToSqlOutput, ValueRef};

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
