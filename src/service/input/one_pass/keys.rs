//! A struct's keys: each must be one of its fields; the required ones are counted.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, Visitor};

/// A struct's fields, the ones it requires (bits in their order) and the ones seen so far.
#[derive(Clone, Copy)]
pub(super) struct Fields {
    pub(super) names: &'static [&'static str],
    pub(super) required: u64,
    pub(super) seen: u64,
}

/// The seed of a struct's key: the key must be one of the struct's fields.
pub(super) struct KeySeed<'f, S> {
    pub(super) seed: S,
    pub(super) fields: &'f mut Fields,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, key: D) -> Result<Self::Value, D::Error> {
        self.seed.deserialize(Key {
            key,
            fields: self.fields,
        })
    }
}

/// A struct's key, handed to serde's field visitor once it is known to be a field.
struct Key<'f, D> {
    key: D,
    fields: &'f mut Fields,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Key<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.key.deserialize_any(KnownKey {
            visitor,
            fields: self.fields,
        })
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.key.deserialize_identifier(KnownKey {
            visitor,
            fields: self.fields,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        ignored_any
    }
}

struct KnownKey<'f, V> {
    visitor: V,
    fields: &'f mut Fields,
}

impl<V> KnownKey<'_, V> {
    /// Counts `key` as seen, or refuses it when the struct has no such field.
    fn known<E: de::Error>(&mut self, key: &str) -> Result<(), E> {
        match self.fields.names.iter().position(|name| *name == key) {
            Some(i) => {
                self.fields.seen |= 1 << i;
                Ok(())
            }
            None => Err(E::unknown_field(key, self.fields.names)),
        }
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KnownKey<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_str<E: de::Error>(mut self, key: &str) -> Result<Self::Value, E> {
        self.known(key)?;
        self.visitor.visit_str(key)
    }

    fn visit_borrowed_str<E: de::Error>(mut self, key: &'de str) -> Result<Self::Value, E> {
        self.known(key)?;
        self.visitor.visit_borrowed_str(key)
    }

    fn visit_string<E: de::Error>(mut self, key: String) -> Result<Self::Value, E> {
        self.known(&key)?;
        self.visitor.visit_string(key)
    }
}
