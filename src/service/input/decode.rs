//! Request bodies decoded at the edge and checked against their schema before serde reads them.

use crate::{
    error::{Error, Result},
    model::validate::Violations,
    service::input::{one_pass, strict},
};

/// A request body decoded at the edge (REST or MCP). A decoding error is held, not returned, so
/// that the operation reports it only after authentication, organization and scope checks:
/// a caller without rights learns 404/403, never details of the body. A body of the wrong shape
/// keeps a copy repaired to fit (`strict::repaired`), so that the operation's own checks can
/// report their problems in the same answer (`checked`).
pub struct Input<T> {
    decoded: Result<T>,
    repaired: Option<T>,
}

/// A body with every problem found: the shape's, and the operation's own on the body (or on
/// its repaired copy).
pub enum Checked<T> {
    Valid(T),
    /// The problems, and the body they were found in when it could be read (to check its
    /// references against stored data as well).
    Invalid(Violations, Option<T>),
    /// Not a body at all (not JSON, not an object).
    Unreadable(Error),
}

impl<T> Input<T> {
    pub fn new(decoded: Result<T>) -> Input<T> {
        Input {
            decoded,
            repaired: None,
        }
    }

    pub fn ok(value: T) -> Input<T> {
        Input::new(Ok(value))
    }

    pub fn get(self) -> Result<T> {
        self.decoded
    }

    pub fn map<U>(self, f: impl Fn(T) -> U) -> Input<U> {
        Input {
            decoded: self.decoded.map(&f),
            repaired: self.repaired.map(f),
        }
    }

    /// The body checked by `check` as well as by its shape, every problem in one list. With a
    /// wrong shape `check` runs on the repaired body, and what it finds on a field that already
    /// has a problem (often the repair's own placeholder) is left out.
    pub fn checked(self, check: impl FnOnce(&T, &mut Violations)) -> Checked<T> {
        match (self.decoded, self.repaired) {
            (Ok(body), _) => {
                let mut errors = Violations::new();
                check(&body, &mut errors);
                if errors.is_empty() {
                    Checked::Valid(body)
                } else {
                    Checked::Invalid(errors, Some(body))
                }
            }
            (Err(Error::Validation(shape)), repaired) => {
                let mut errors = Violations::from(shape);
                if let Some(body) = &repaired {
                    let mut more = Violations::new();
                    check(body, &mut more);
                    errors.merge(more);
                }
                Checked::Invalid(errors, repaired)
            }
            (Err(other), _) => Checked::Unreadable(other),
        }
    }
}

/// Decodes a JSON body into an `Input`, keeping a repaired copy when its shape is wrong. A body
/// that fits is read once, straight into `T` (`one_pass`).
pub fn input_json<T>(bytes: &[u8]) -> Input<T>
where
    T: serde::de::DeserializeOwned + poem_openapi::types::Type + 'static,
{
    if let Some(body) = one_pass::decode(bytes) {
        return Input::ok(body);
    }
    match serde_json::from_slice(bytes) {
        Ok(value) => input_value(value),
        Err(e) => Input::new(Err(Error::InvalidJson(e.to_string()))),
    }
}

/// `input_json` for an already parsed value.
pub fn input_value<T>(value: serde_json::Value) -> Input<T>
where
    T: serde::de::DeserializeOwned + poem_openapi::types::Type + 'static,
{
    if let Some(body) = one_pass::decode_value(&value) {
        return Input::ok(body);
    }
    if !value.is_object() {
        return Input::new(Err(not_an_object()));
    }
    let violations = strict::violations::<T>(&value);
    if violations.is_empty() {
        return Input::new(deserialize(value));
    }
    let repaired = serde_json::from_value(strict::repaired::<T>(&value)).ok();
    Input {
        decoded: Err(Error::Validation(violations)),
        repaired,
    }
}

/// The problems of `errors` as one list (for callers that add their own).
pub fn problems(errors: Violations) -> Error {
    Error::Validation(errors.into_vec())
}

/// Decodes a JSON body (REST) or argument object (MCP) into `T`. Text that is not JSON is
/// `InvalidJson`; JSON of the wrong shape is `Validation` naming every field at fault
/// (DESIGN §5, §16).
pub fn decode_json<T>(bytes: &[u8]) -> Result<T>
where
    T: serde::de::DeserializeOwned + poem_openapi::types::Type + 'static,
{
    if let Some(body) = one_pass::decode(bytes) {
        return Ok(body);
    }
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| Error::InvalidJson(e.to_string()))?;
    decode_value(value)
}

/// Decodes an already parsed JSON value into `T`; see `decode_json`. The value is checked
/// against `T`'s schema first (unknown, missing and mistyped fields, all at once).
pub fn decode_value<T>(value: serde_json::Value) -> Result<T>
where
    T: serde::de::DeserializeOwned + poem_openapi::types::Type + 'static,
{
    match one_pass::decode_value(&value) {
        Some(body) => Ok(body),
        None => checked(value),
    }
}

/// `decode_value` without the one-pass reading: the value checked against `T`'s schema, then
/// read.
pub(super) fn checked<T>(value: serde_json::Value) -> Result<T>
where
    T: serde::de::DeserializeOwned + poem_openapi::types::Type + 'static,
{
    if !value.is_object() {
        return Err(not_an_object());
    }
    let violations = strict::violations::<T>(&value);
    if !violations.is_empty() {
        return Err(Error::Validation(violations));
    }
    deserialize(value)
}

fn not_an_object() -> Error {
    Error::invalid("body", "must be a JSON object")
}

/// `T` from a value that fits its schema. What serde still refuses (a rule of its own, or of a
/// type's `Deserialize`) is read a second time to name the field at fault.
fn deserialize<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T> {
    if let Ok(body) = T::deserialize(&value) {
        return Ok(body);
    }
    serde_path_to_error::deserialize(value).map_err(|err| {
        let path = err.path().to_string();
        let message = err.into_inner().to_string();
        let join = |name: &str| {
            if path == "." {
                name.to_string()
            } else {
                format!("{path}.{name}")
            }
        };
        match message
            .strip_prefix("missing field `")
            .and_then(|rest| rest.split_once('`'))
        {
            Some((name, _)) => Error::invalid(join(name), "is required"),
            None => Error::invalid(
                if path == "." {
                    "body".to_string()
                } else {
                    path
                },
                plain(&message),
            ),
        }
    })
}

/// serde's message for a value outside an enum, in the words of the rest of the API.
fn plain(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown variant `") else {
        return message.to_string();
    };
    let allowed = rest
        .split_once("expected ")
        .map(|(_, list)| list.trim_start_matches("one of ").replace(" or ", ", "))
        .unwrap_or_default()
        .replace('`', "");
    format!("must be one of {allowed}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_outside_an_enum_reads_like_our_own_messages() {
        #[derive(Debug, serde::Deserialize, poem_openapi::Object)]
        #[allow(dead_code)]
        struct Body {
            status: crate::model::status::OrderStatus,
        }
        match decode_json::<Body>(br#"{"status": "lost"}"#) {
            Err(Error::Validation(errors)) => {
                assert_eq!(errors[0].field, "status");
                assert_eq!(
                    errors[0].message,
                    "must be one of pending, processing, partially_fulfilled, fulfilled, error, cancelled"
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
