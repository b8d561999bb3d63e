//! Answers written from stored JSON: an object as poem-openapi serializes it (compact, keys in
//! byte order, as `serde_json::Map` keeps them) is merged with other members at their sorted
//! places, or narrowed to some of its members, without building a value tree. The bytes are
//! those the model's own serialization writes (the property tests of `shipment::wire` compare
//! them).

use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// A member to add: its key (plain ASCII, no escapes) and its JSON.
pub type Member<'a> = (&'a str, &'a [u8]);

/// Writes `object` (a JSON object with sorted keys, as `serde_json` writes a `Map`) to `out`,
/// keeping the members `keep` accepts and adding `extra` (sorted by key, none of them kept from
/// `object`) in their places. Stored objects are written by us; one that is not an object with
/// plain keys is an error.
pub fn merge(
    object: &str,
    keep: impl Fn(&str) -> bool,
    extra: &[Member],
    out: &mut Vec<u8>,
) -> serde_json::Result<()> {
    let mut de = serde_json::Deserializer::from_str(object);
    de.deserialize_map(Merge { keep, extra, out })?;
    de.end()
}

/// The JSON of a value as poem-openapi answers it.
pub fn to_vec<T: poem_openapi::types::ToJSON>(value: &T) -> Vec<u8> {
    let json = value.to_json().unwrap_or(serde_json::Value::Null);
    // A `Value` always serializes.
    serde_json::to_vec(&json).unwrap_or_default()
}

/// The JSON of a value as poem-openapi answers it, without the member `leave_out` (when given):
/// what a write stores as a resource's representation.
pub fn stored<T: poem_openapi::types::ToJSON>(value: &T, leave_out: Option<&str>) -> String {
    let mut json = value.to_json().unwrap_or_default();
    if let (Some(object), Some(key)) = (json.as_object_mut(), leave_out) {
        object.remove(key);
    }
    // A `Value` always serializes.
    serde_json::to_string(&json).unwrap_or_default()
}

/// Writes `[a,b,…]` of JSON texts.
pub fn array<'a>(items: impl IntoIterator<Item = &'a [u8]>, out: &mut Vec<u8>) {
    out.push(b'[');
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(item);
    }
    out.push(b']');
}

/// The envelope of a list (`page_of!`): `{"data":[…],"limit":…,"page":…,"total":…,"totalPages":…}`
/// around items already written.
pub fn page<'a>(
    items: impl IntoIterator<Item = &'a [u8]>,
    total: u64,
    query: crate::model::page::PageQuery,
) -> Vec<u8> {
    use std::io::Write;
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(b"{\"data\":");
    array(items, &mut out);
    let pages = crate::model::page::total_pages(total, query.limit);
    // Writing to a Vec cannot fail.
    let _ = write!(
        out,
        ",\"limit\":{},\"page\":{},\"total\":{total},\"totalPages\":{pages}}}",
        query.limit, query.page
    );
    out
}

struct Merge<'a, 'o, K> {
    keep: K,
    extra: &'a [Member<'a>],
    out: &'o mut Vec<u8>,
}

impl<'de, K: Fn(&str) -> bool> Visitor<'de> for Merge<'_, '_, K> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object with plain keys")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let out = self.out;
        let mut extra = self.extra.iter().peekable();
        let mut first = true;
        let mut member = |out: &mut Vec<u8>, key: &str, value: &[u8]| {
            out.push(if first { b'{' } else { b',' });
            first = false;
            out.push(b'"');
            out.extend_from_slice(key.as_bytes());
            out.extend_from_slice(b"\":");
            out.extend_from_slice(value);
        };
        while let Some(key) = map.next_key::<&'de str>()? {
            let value = map.next_value::<&'de RawValue>()?;
            while let Some((k, v)) = extra.next_if(|(k, _)| *k < key) {
                member(out, k, v);
            }
            if (self.keep)(key) {
                member(out, key, value.get().as_bytes());
            }
        }
        for (k, v) in extra {
            member(out, k, v);
        }
        if first {
            out.push(b'{');
        }
        out.push(b'}');
        Ok(())
    }
}

/// Errors of a stored object that cannot be merged, for `Error::Internal`.
pub fn broken(what: &str, e: impl fmt::Display) -> crate::error::Error {
    crate::error::Error::Internal(format!("stored {what} is not mergeable JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merged(object: &str, keep: impl Fn(&str) -> bool, extra: &[Member]) -> String {
        let mut out = Vec::new();
        merge(object, keep, extra, &mut out).expect("merges");
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn members_go_to_their_sorted_places() {
        let object = r#"{"b":1,"d":{"x":[1,2]},"f":"s\"t"}"#;
        let all = |_: &str| true;
        assert_eq!(
            merged(object, all, &[("a", b"0"), ("c", b"[]"), ("g", b"null")]),
            r#"{"a":0,"b":1,"c":[],"d":{"x":[1,2]},"f":"s\"t","g":null}"#
        );
        assert_eq!(merged(object, all, &[]), object);
        assert_eq!(merged("{}", all, &[("a", b"1")]), r#"{"a":1}"#);
        assert_eq!(merged("{}", all, &[]), "{}");
    }

    #[test]
    fn members_can_be_left_out() {
        let object = r#"{"b":1,"d":{"x":[1,2]},"f":"s"}"#;
        assert_eq!(
            merged(object, |k| k != "d", &[("e", b"true")]),
            r#"{"b":1,"e":true,"f":"s"}"#
        );
        assert_eq!(merged(object, |_| false, &[]), "{}");
    }

    #[test]
    fn what_is_no_object_is_refused() {
        let mut out = Vec::new();
        assert!(merge("[1]", |_| true, &[], &mut out).is_err());
        assert!(merge(r#"{"a":1} x"#, |_| true, &[], &mut out).is_err());
        assert!(merge(r#"{"a\"b":1}"#, |_| true, &[], &mut out).is_err());
    }
}
