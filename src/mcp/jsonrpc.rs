//! JSON-RPC 2.0 messages as `/mcp` receives and answers them, and the HTTP answers that carry
//! them: a JSON body, or one SSE event, as the client's `Accept` allows.

use poem::{
    Response,
    http::{StatusCode, header},
};
use serde_json::{Map, Value, json};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// 2026-07-28: the request headers are missing or do not match the body.
pub const HEADER_MISMATCH: i64 = -32020;
/// 2026-07-28: the requested protocol version is not served.
pub const UNSUPPORTED_VERSION: i64 = -32022;

/// One incoming message.
#[derive(Debug, Clone)]
pub struct Message {
    /// None for a notification.
    pub id: Option<Value>,
    pub method: String,
    pub params: Map<String, Value>,
}

/// What a body is.
pub enum Incoming {
    Message(Message),
    /// A JSON-RPC response from the client (the server never asks it anything).
    Response,
}

/// Parses a body into one message, or the error to answer (with the id when one was readable).
pub fn parse(body: &[u8]) -> Result<Incoming, Failure> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        Failure::new(
            StatusCode::BAD_REQUEST,
            None,
            PARSE_ERROR,
            format!("Parse error: {e}"),
        )
    })?;
    let Value::Object(mut object) = value else {
        return Err(Failure::new(
            StatusCode::BAD_REQUEST,
            None,
            INVALID_REQUEST,
            "Invalid Request: the body must be one JSON-RPC message (batches are not supported)",
        ));
    };
    let id = object.remove("id");
    if let Some(id) = &id
        && !(id.is_string() || id.is_i64() || id.is_u64())
    {
        return Err(Failure::new(
            StatusCode::BAD_REQUEST,
            None,
            INVALID_REQUEST,
            "Invalid Request: id must be a string or an integer",
        ));
    }
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(Failure::new(
            StatusCode::BAD_REQUEST,
            id,
            INVALID_REQUEST,
            "Invalid Request: jsonrpc must be \"2.0\"",
        ));
    }
    let method = match object.remove("method") {
        Some(Value::String(method)) => method,
        None if id.is_some() && (object.contains_key("result") || object.contains_key("error")) => {
            return Ok(Incoming::Response);
        }
        _ => {
            return Err(Failure::new(
                StatusCode::BAD_REQUEST,
                id,
                INVALID_REQUEST,
                "Invalid Request: method must be a string",
            ));
        }
    };
    let params = match object.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(params)) => params,
        Some(_) => {
            return Err(Failure::new(
                StatusCode::BAD_REQUEST,
                id,
                INVALID_PARAMS,
                "Invalid params: params must be an object",
            ));
        }
    };
    Ok(Incoming::Message(Message { id, method, params }))
}

/// An error answer: its HTTP status and JSON-RPC error.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub status: StatusCode,
    pub id: Option<Value>,
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
    /// A `WWW-Authenticate` challenge the HTTP answer carries (a scope step-up).
    pub challenge: Option<Box<str>>,
}

impl Failure {
    pub fn new(
        status: StatusCode,
        id: Option<Value>,
        code: i64,
        message: impl Into<String>,
    ) -> Failure {
        Failure {
            status,
            id,
            code,
            message: message.into(),
            data: None,
            challenge: None,
        }
    }

    pub fn with_challenge(mut self, challenge: String) -> Failure {
        self.challenge = Some(challenge.into_boxed_str());
        self
    }

    pub fn with_data(mut self, data: Value) -> Failure {
        self.data = Some(data);
        self
    }

    pub fn body(&self) -> Value {
        let mut error = json!({"code": self.code, "message": self.message});
        if let Some(data) = &self.data {
            error["data"] = data.clone();
        }
        let mut body = json!({"jsonrpc": "2.0", "error": error});
        if let Some(id) = &self.id {
            body["id"] = id.clone();
        }
        body
    }
}

/// How to send an answer: the media type the client accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    Json,
    EventStream,
}

impl Framing {
    /// JSON when the client accepts it (or says nothing), else an event stream when it accepts
    /// that; None when it accepts neither.
    pub fn of(accept: Option<&str>) -> Option<Framing> {
        let Some(accept) = accept.filter(|a| !a.trim().is_empty()) else {
            return Some(Framing::Json);
        };
        let types: Vec<String> = accept
            .split(',')
            .filter_map(|t| t.split(';').next())
            .map(|t| t.trim().to_ascii_lowercase())
            .collect();
        let has = |wanted: &str| types.iter().any(|t| t == wanted);
        if has("application/json") || has("application/*") || has("*/*") {
            Some(Framing::Json)
        } else if has("text/event-stream") || has("text/*") {
            Some(Framing::EventStream)
        } else {
            None
        }
    }
}

/// The answer to a request: `result` (or `error`) in the framing the client accepts.
pub fn answer(framing: Framing, status: StatusCode, body: &Value) -> Response {
    let text = body.to_string();
    match framing {
        Framing::Json => Response::builder()
            .status(status)
            .content_type("application/json")
            .body(text),
        Framing::EventStream => Response::builder()
            .status(status)
            .content_type("text/event-stream")
            .header(header::CACHE_CONTROL, "no-cache")
            .header("X-Accel-Buffering", "no")
            .body(format!("event: message\ndata: {text}\n\n")),
    }
}

pub fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// 202, no body: a notification (or a client's response) was taken.
pub fn accepted() -> Response {
    Response::builder().status(StatusCode::ACCEPTED).finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_headers_choose_the_framing() {
        assert_eq!(Framing::of(None), Some(Framing::Json));
        assert_eq!(
            Framing::of(Some("application/json, text/event-stream")),
            Some(Framing::Json)
        );
        assert_eq!(
            Framing::of(Some("text/event-stream")),
            Some(Framing::EventStream)
        );
        assert_eq!(Framing::of(Some("text/html")), None);
    }

    #[test]
    fn bodies_are_one_message_with_a_valid_id() {
        assert!(
            matches!(parse(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), Ok(Incoming::Message(m)) if m.id == Some(json!(1)))
        );
        assert!(
            matches!(parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), Ok(Incoming::Message(m)) if m.id.is_none())
        );
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Ok(Incoming::Response)
        ));
        for (body, code) in [
            (&b"{nope"[..], PARSE_ERROR),
            (
                br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
                INVALID_REQUEST,
            ),
            (
                br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                INVALID_REQUEST,
            ),
            (
                br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
                INVALID_REQUEST,
            ),
            (
                br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}"#,
                INVALID_PARAMS,
            ),
        ] {
            assert_eq!(
                parse(body).err().map(|f| f.code),
                Some(code),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }
}
