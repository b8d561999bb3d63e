//! Request bodies decoded at the edge and checked against their schema before serde reads them.

use crate::{
    error::{Error, Result},
    service::input::strict,
};

/// A request body decoded at the edge (REST or MCP). A decoding error is held, not returned, so
/// that the operation reports it only after authentication, organization and scope checks:
/// a caller without rights learns 404/403, never details of the body.
pub struct Input<T>(Result<T>);

impl<T> Input<T> {
    pub fn new(decoded: Result<T>) -> Input<T> {
        Input(decoded)
    }

    pub fn ok(value: T) -> Input<T> {
        Input(Ok(value))
    }

    pub fn get(self) -> Result<T> {
        self.0
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Input<U> {
        Input(self.0.map(f))
    }
}

/// Decodes a JSON body (REST) or argument object (MCP) into `T`. Text that is not JSON is
/// `InvalidJson`; JSON of the wrong shape is `Validation` naming every field at fault
/// (DESIGN §5, §16).
pub fn decode_json<T>(bytes: &[u8]) -> Result<T>
where
    T: serde::de::DeserializeOwned + poem_openapi::types::Type + 'static,
{
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
    if !value.is_object() {
        return Err(Error::invalid("body", "must be a JSON object"));
    }
    let violations = strict::violations::<T>(&value);
    if !violations.is_empty() {
        return Err(Error::Validation(violations));
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
