//! Which protocol era a POST belongs to (DESIGN §12), and the framing checks of the modern one
//! (2026-07-28): per-request `_meta`, and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
//! headers mirroring the body.

use base64::{Engine, engine::general_purpose::STANDARD};
use poem::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};

use crate::mcp::jsonrpc::{Failure, HEADER_MISMATCH, INVALID_PARAMS, Message, UNSUPPORTED_VERSION};

/// The stateless revision.
pub const MODERN: &str = "2026-07-28";
/// The revisions with an `initialize` handshake, newest first.
pub const LEGACY: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];
/// Every revision served, newest first.
pub const SUPPORTED: [&str; 4] = [MODERN, LEGACY[0], LEGACY[1], LEGACY[2]];

pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

pub const VERSION_HEADER: &str = "mcp-protocol-version";
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    Modern,
    Legacy,
}

/// Modern when the body's `_meta` names a protocol version (even an unsupported one, even on
/// `initialize`); legacy for an `initialize` without it; otherwise modern if the
/// `MCP-Protocol-Version` header names the modern revision, else legacy.
pub fn of(message: &Message, headers: &HeaderMap) -> Era {
    if meta(message).and_then(|m| m.get(META_VERSION)).is_some() {
        return Era::Modern;
    }
    if message.method == "initialize" {
        return Era::Legacy;
    }
    match header(headers, VERSION_HEADER) {
        Some(version) if version == MODERN => Era::Modern,
        _ => Era::Legacy,
    }
}

fn meta(message: &Message) -> Option<&serde_json::Map<String, Value>> {
    message.params.get("_meta").and_then(Value::as_object)
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Checks a modern request (one with an id): its `_meta`, then its headers against the body,
/// then the version.
pub fn check_modern(message: &Message, headers: &HeaderMap) -> Result<(), Failure> {
    let id = message.id.clone();
    let bad =
        |code: i64, text: String| Failure::new(StatusCode::BAD_REQUEST, id.clone(), code, text);
    let meta = meta(message);
    let version = meta
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str);
    let Some(version) = version else {
        return Err(bad(
            INVALID_PARAMS,
            format!("Invalid params: _meta[\"{META_VERSION}\"] must name the protocol version"),
        ));
    };
    if !meta
        .and_then(|m| m.get(META_CAPABILITIES))
        .is_some_and(Value::is_object)
    {
        return Err(bad(
            INVALID_PARAMS,
            format!("Invalid params: _meta[\"{META_CAPABILITIES}\"] must be an object"),
        ));
    }
    let mirrored = |name: &str, label: &str, body: &str| -> Result<(), Failure> {
        match headers.get(name).map(|v| v.to_str()) {
            None => Err(bad(
                HEADER_MISMATCH,
                format!("Header mismatch: the {label} header is required"),
            )),
            Some(Err(_)) => Err(bad(
                HEADER_MISMATCH,
                format!("Header mismatch: the {label} header has invalid characters"),
            )),
            Some(Ok(value)) => {
                let value = decode(name, value).ok_or_else(|| {
                    bad(
                        HEADER_MISMATCH,
                        format!("Header mismatch: the {label} header is not valid"),
                    )
                })?;
                if value == body {
                    Ok(())
                } else {
                    Err(bad(
                        HEADER_MISMATCH,
                        format!(
                            "Header mismatch: {label} header value '{value}' does not match body value '{body}'"
                        ),
                    ))
                }
            }
        }
    };
    mirrored(VERSION_HEADER, "MCP-Protocol-Version", version)?;
    if version != MODERN {
        return Err(
            bad(UNSUPPORTED_VERSION, "Unsupported protocol version".into())
                .with_data(json!({"supported": SUPPORTED, "requested": version})),
        );
    }
    mirrored(METHOD_HEADER, "Mcp-Method", &message.method)?;
    if matches!(
        message.method.as_str(),
        "tools/call" | "prompts/get" | "resources/read"
    ) {
        let key = if message.method == "resources/read" {
            "uri"
        } else {
            "name"
        };
        let name = message
            .params
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default();
        mirrored(NAME_HEADER, "Mcp-Name", name)?;
    }
    Ok(())
}

/// A header value as the body would say it: without surrounding whitespace (not part of an
/// HTTP field value), and for `Mcp-Name` decoded from `=?base64?…?=` (UTF-8 bytes).
fn decode(name: &str, value: &str) -> Option<String> {
    let value = value.trim_matches([' ', '\t']);
    if name == NAME_HEADER
        && let Some(encoded) = value
            .strip_prefix("=?base64?")
            .and_then(|v| v.strip_suffix("?="))
    {
        return STANDARD
            .decode(encoded)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok());
    }
    let plain = value
        .bytes()
        .all(|b| b == b'\t' || (0x20..=0x7e).contains(&b));
    plain.then(|| value.to_string())
}

/// Checks a legacy request's `MCP-Protocol-Version` header: absent means 2025-03-26; present,
/// it must be a legacy revision (and the session's, when there is one).
pub fn check_legacy_version(
    headers: &HeaderMap,
    id: Option<Value>,
    session: Option<&str>,
) -> Result<(), Failure> {
    let Some(version) = header(headers, VERSION_HEADER) else {
        return Ok(());
    };
    let supported = LEGACY.contains(&version);
    if supported && session.is_none_or(|s| s == version) {
        return Ok(());
    }
    let why = if supported {
        format!("MCP-Protocol-Version {version} differs from the session's")
    } else {
        format!(
            "MCP-Protocol-Version {version} is not supported; supported: {}",
            SUPPORTED.join(", ")
        )
    };
    Err(Failure::new(
        StatusCode::BAD_REQUEST,
        id,
        crate::mcp::jsonrpc::INVALID_REQUEST,
        format!("Bad Request: {why}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::jsonrpc::{Incoming, parse};

    fn message(body: Value) -> Message {
        match parse(body.to_string().as_bytes()) {
            Ok(Incoming::Message(m)) => m,
            _ => panic!("not a message"),
        }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            if let Ok(value) = value.parse() {
                map.insert(*name, value);
            }
        }
        map
    }

    fn modern_call(version: &str) -> Message {
        message(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "météo",
            "_meta": {META_VERSION: version, META_CAPABILITIES: {}}}}),
        )
    }

    #[test]
    fn the_era_follows_meta_then_initialize_then_the_header() {
        let none = HeaderMap::new();
        assert_eq!(of(&modern_call("1999-01-01"), &none), Era::Modern);
        let init =
            message(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}));
        assert_eq!(
            of(&init, &headers(&[("mcp-protocol-version", MODERN)])),
            Era::Legacy
        );
        let list = message(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
        assert_eq!(
            of(&list, &headers(&[("mcp-protocol-version", MODERN)])),
            Era::Modern
        );
        assert_eq!(
            of(&list, &headers(&[("mcp-protocol-version", "2025-06-18")])),
            Era::Legacy
        );
        assert_eq!(of(&list, &none), Era::Legacy);
    }

    #[test]
    fn modern_headers_must_mirror_the_body() {
        let call = modern_call(MODERN);
        let encoded = format!("=?base64?{}?=", STANDARD.encode("météo"));
        let good = [
            ("mcp-protocol-version", MODERN),
            ("mcp-method", "tools/call"),
            ("mcp-name", encoded.as_str()),
        ];
        assert_eq!(check_modern(&call, &headers(&good)), Ok(()));
        let code = |pairs: &[(&'static str, &str)], m: &Message| {
            check_modern(m, &headers(pairs)).err().map(|f| f.code)
        };
        assert_eq!(code(&good[..2], &call), Some(HEADER_MISMATCH));
        assert_eq!(
            code(&[good[0], ("mcp-method", "TOOLS/CALL"), good[2]], &call),
            Some(HEADER_MISMATCH)
        );
        assert_eq!(
            code(
                &[("mcp-protocol-version", "2025-11-25"), good[1], good[2]],
                &call
            ),
            Some(HEADER_MISMATCH)
        );
        let old = modern_call("2025-11-25");
        let failure = check_modern(&old, &headers(&[("mcp-protocol-version", "2025-11-25")])).err();
        assert_eq!(failure.as_ref().map(|f| f.code), Some(UNSUPPORTED_VERSION));
        assert_eq!(
            failure.and_then(|f| f.data).map(|d| d["requested"].clone()),
            Some(json!("2025-11-25"))
        );
        let bare = message(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {META_VERSION: MODERN}}}),
        );
        assert_eq!(code(&good, &bare), Some(INVALID_PARAMS));
    }
}
