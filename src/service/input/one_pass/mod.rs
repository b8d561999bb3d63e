//! A strict body decoded in one pass: serde reads the text straight into the write type through
//! `Strict`, a deserializer that refuses what `strict` would report and serde alone lets through
//! (a field a struct does not know, a field the schema requires that serde would fill with a
//! default, an array standing for a struct). Every other shape error (a missing field, a value
//! of the wrong type or outside its enum) serde refuses by itself. A body refused here is read
//! again by the slower path of `decode` (a value tree checked against the schema), which names
//! every problem; so a valid body is decoded once and an invalid one answers exactly as before.
//! `agreement` holds the two paths to the same verdicts for every body type.

use std::{cell::Cell, fmt};

use poem_openapi::types::Type;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess,
    Unexpected, VariantAccess, Visitor,
};

use crate::service::input::strict::{self, Compiled};
use keys::{Fields, KeySeed};

/// Decodes `T` from a JSON object's text in one pass, or `None` when the text is not a body
/// that `strict` finds nothing wrong with and serde reads (the caller then takes the slow path).
pub fn decode<T: DeserializeOwned + Type + 'static>(bytes: &[u8]) -> Option<T> {
    // serde reads a struct from an array too; a body must be an object.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return None;
    }
    let compiled = strict::compiled::<T>();
    let structs = Cell::new(0);
    let schema = Schema(&compiled, &structs);
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let body = T::deserialize(Strict(&mut json, schema)).ok()?;
    json.end().ok()?;
    schema.read_as_shown().then_some(body)
}

/// `decode` for a value already parsed (MCP arguments).
pub fn decode_value<T: DeserializeOwned + Type + 'static>(value: &serde_json::Value) -> Option<T> {
    if !value.is_object() {
        return None;
    }
    let compiled = strict::compiled::<T>();
    let structs = Cell::new(0);
    let schema = Schema(&compiled, &structs);
    let body = T::deserialize(Strict(value, schema)).ok()?;
    schema.read_as_shown().then_some(body)
}

/// The body type's schema, for the fields each of its structs requires, and the number of
/// structs read.
#[derive(Clone, Copy)]
struct Schema<'c>(&'c Compiled, &'c Cell<u32>);

impl Schema<'_> {
    /// Whether the body was read as a struct when its schema shows one: a type that reads itself
    /// otherwise (`MergePatch`, a map checked against the fields it may change) is checked by
    /// the schema.
    fn read_as_shown(self) -> bool {
        self.1.get() > 0 || !strict::shows_fields(self.0)
    }

    fn required(self, fields: &'static [&'static str]) -> Option<u64> {
        strict::required(self.0, fields)
    }
}

/// A deserializer whose structs take only the fields they name, every field the schema
/// requires, and objects only.
struct Strict<'c, D>(D, Schema<'c>);

/// Hands every value a visitor is given on to it through `Strict` again.
struct Nested<'c, V>(V, Schema<'c>);

/// The visitor of a struct: an object of known fields.
struct Struct<'c, V> {
    visitor: V,
    fields: &'static [&'static str],
    schema: Schema<'c>,
}

struct Seed<'c, S>(S, Schema<'c>);
struct Seq<'c, A>(A, Schema<'c>);

/// An object's members; a struct's keys are checked against its fields and the required ones
/// counted.
struct Map<'c, A> {
    map: A,
    schema: Schema<'c>,
    fields: Option<Fields>,
}

struct Enum<'c, A>(A, Schema<'c>);
struct Variant<'c, A>(A, Schema<'c>);

macro_rules! forward_deserialize {
    ($($method:ident),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method(Nested(visitor, self.1))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Strict<'_, D> {
    type Error = D::Error;

    forward_deserialize!(
        deserialize_any,
        deserialize_bool,
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_i128,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_u128,
        deserialize_f32,
        deserialize_f64,
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_bytes,
        deserialize_byte_buf,
        deserialize_option,
        deserialize_unit,
        deserialize_seq,
        deserialize_map,
        deserialize_identifier,
        deserialize_ignored_any
    );

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_unit_struct(name, Nested(visitor, self.1))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_newtype_struct(name, Nested(visitor, self.1))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, Nested(visitor, self.1))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_tuple_struct(name, len, Nested(visitor, self.1))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let schema = self.1;
        self.0.deserialize_struct(
            name,
            fields,
            Struct {
                visitor,
                fields,
                schema,
            },
        )
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_enum(name, variants, Nested(visitor, self.1))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// The `visit_*` methods that take a plain value, handed on unchanged.
macro_rules! forward_visits {
    ($($method:ident: $ty:ty),*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
            self.0.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Nested<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.expecting(f)
    }

    forward_visits!(
        visit_bool: bool, visit_i8: i8, visit_i16: i16, visit_i32: i32, visit_i64: i64,
        visit_i128: i128, visit_u8: u8, visit_u16: u16, visit_u32: u32, visit_u64: u64,
        visit_u128: u128, visit_f32: f32, visit_f64: f64, visit_char: char, visit_str: &str,
        visit_borrowed_str: &'de str, visit_string: String, visit_bytes: &[u8],
        visit_borrowed_bytes: &'de [u8], visit_byte_buf: Vec<u8>
    );

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.0.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.0.visit_unit()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.0.visit_seq(Seq(seq, self.1))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.0.visit_map(Map {
            map,
            schema: self.1,
            fields: None,
        })
    }

    fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
        self.0.visit_some(Strict(d, self.1))
    }

    fn visit_newtype_struct<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
        self.0.visit_newtype_struct(Strict(d, self.1))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        self.0.visit_enum(Enum(data, self.1))
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Struct<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let Some(required) = self.schema.required(self.fields) else {
            return Err(de::Error::custom("a struct the schema does not show"));
        };
        self.schema.1.set(self.schema.1.get() + 1);
        self.visitor.visit_map(Map {
            map,
            schema: self.schema,
            fields: Some(Fields {
                names: self.fields,
                required,
                seen: 0,
            }),
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(de::Error::invalid_type(Unexpected::Seq, &self))
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.0.deserialize(Strict(d, self.1))
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Seq<'_, A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Seed(seed, self.1))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Map<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let Some(fields) = &mut self.fields else {
            return self.map.next_key_seed(Seed(seed, self.schema));
        };
        let key = self.map.next_key_seed(KeySeed { seed, fields })?;
        if key.is_none() && fields.seen & fields.required != fields.required {
            return Err(de::Error::custom("a required field is missing"));
        }
        Ok(key)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(Seed(seed, self.schema))
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}
impl<'de, 'c, A: EnumAccess<'de>> EnumAccess<'de> for Enum<'c, A> {
    type Error = A::Error;
    type Variant = Variant<'c, A::Variant>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), A::Error> {
        let (value, variant) = self.0.variant_seed(seed)?;
        Ok((value, Variant(variant, self.1)))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Variant<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(Seed(seed, self.1))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Nested(visitor, self.1))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let schema = self.1;
        self.0.struct_variant(
            fields,
            Struct {
                visitor,
                fields,
                schema,
            },
        )
    }
}

mod keys;
#[cfg(test)]
mod tests;
