//! The MCP endpoint in both protocol eras (DESIGN §12): transport and framing, tools over the
//! REST operations, and the live checks. `Mcp` speaks either era by hand, so that every header
//! and field can be asserted.

use reqwest::{Method, header::HeaderMap};
use serde_json::{Value, json};

use crate::helpers::TestApp;

mod confirm;
mod every_tool;
mod legacy;
mod modern;
mod tools;
mod transport;

pub const MODERN: &str = "2026-07-28";

/// An answer of `/mcp`.
pub struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub text: String,
    pub body: Value,
}

impl Answer {
    pub fn header(&self, name: &str) -> String {
        crate::helpers::header(&self.headers, name)
    }

    /// The JSON-RPC error code.
    pub fn code(&self) -> i64 {
        self.body["error"]["code"].as_i64().unwrap_or_default()
    }

    #[track_caller]
    pub fn result(&self) -> &Value {
        assert_eq!(self.status, 200, "{}", self.text);
        assert!(
            self.body.get("result").is_some(),
            "no result: {}",
            self.text
        );
        &self.body["result"]
    }
}

/// A client of one era with a bearer token.
pub struct Mcp<'a> {
    pub app: &'a TestApp,
    pub token: Option<String>,
    /// Legacy: the session and its protocol version once initialized.
    pub session: Option<String>,
    pub version: Option<String>,
    /// The endpoint's path and query (`/mcp`, or `/mcp?toolsets=…`).
    pub path: String,
    /// The client capabilities a modern request declares in `_meta` (none unless set).
    pub capabilities: Value,
    next_id: i64,
}

impl<'a> Mcp<'a> {
    pub fn new(app: &'a TestApp, token: &str) -> Mcp<'a> {
        Mcp {
            app,
            token: Some(token.to_string()),
            session: None,
            version: None,
            path: "/mcp".into(),
            capabilities: json!({}),
            next_id: 0,
        }
    }

    /// POSTs `body` with exactly `headers` (and the token).
    pub async fn raw(&self, headers: &[(&str, &str)], body: &Value) -> Answer {
        let mut req = self
            .app
            .client
            .request(Method::POST, self.app.url(&self.path))
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(token) = &self.token {
            req = req.bearer_auth(token);
        }
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        read(req.send().await.expect("POST /mcp")).await
    }

    fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// A modern request: `_meta` and the mirrored headers.
    pub async fn modern(&mut self, method: &str, params: Value) -> Answer {
        let mut params = params.as_object().cloned().unwrap_or_default();
        let mut declared = meta(MODERN);
        declared["io.modelcontextprotocol/clientCapabilities"] = self.capabilities.clone();
        params.insert("_meta".into(), declared);
        let body = json!({"jsonrpc": "2.0", "id": self.id(), "method": method, "params": params});
        let key = if method == "resources/read" {
            "uri"
        } else {
            "name"
        };
        let name = params
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let mut headers = vec![
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", MODERN),
            ("mcp-method", method),
        ];
        if matches!(method, "tools/call" | "resources/read" | "prompts/get") {
            headers.push(("mcp-name", name.as_str()));
        }
        self.raw(&headers, &body).await
    }

    /// `initialize` then `notifications/initialized` in `version`.
    pub async fn initialize(&mut self, version: &str) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": self.id(), "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "tests", "version": "1"}}});
        let answer = self
            .raw(&[("accept", "application/json, text/event-stream")], &body)
            .await;
        let result = answer.result().clone();
        self.session = Some(answer.header("mcp-session-id"));
        self.version = result["protocolVersion"].as_str().map(str::to_string);
        let note = self.legacy_note("notifications/initialized").await;
        assert_eq!(note.status, 202, "{}", note.text);
        result
    }

    fn legacy_headers(&self) -> Vec<(&str, &str)> {
        let mut headers = vec![("accept", "application/json, text/event-stream")];
        if let Some(session) = &self.session {
            headers.push(("mcp-session-id", session.as_str()));
        }
        if let Some(version) = &self.version {
            headers.push(("mcp-protocol-version", version.as_str()));
        }
        headers
    }

    /// A legacy request in the session.
    pub async fn legacy(&mut self, method: &str, params: Value) -> Answer {
        let body = json!({"jsonrpc": "2.0", "id": self.id(), "method": method, "params": params});
        self.raw(&self.legacy_headers(), &body).await
    }

    pub async fn legacy_note(&self, method: &str) -> Answer {
        self.raw(
            &self.legacy_headers(),
            &json!({"jsonrpc": "2.0", "method": method}),
        )
        .await
    }

    /// `tools/call` in this client's era (legacy once initialized). A successful result is
    /// checked against the tool's `outputSchema` from this era's `tools/list`, so every tool the
    /// suite calls proves its schema.
    pub async fn call(&mut self, name: &str, arguments: Value) -> Answer {
        let params = json!({"name": name, "arguments": arguments});
        let answer = if self.session.is_some() {
            self.legacy("tools/call", params).await
        } else {
            self.modern("tools/call", params).await
        };
        let result = &answer.body["result"];
        let plain = self.version.as_deref() == Some("2025-03-26");
        let done = result["resultType"] != "input_required";
        if answer.status == 200 && result.is_object() && !plain && done {
            // A success fits the schema's success branch; a failure (its problem) the whole schema.
            let failed = result["isError"] == true;
            let mut schema = self.output_schema(name).await;
            if !failed {
                let defs = schema.get("$defs").cloned();
                schema = schema["anyOf"][0].clone();
                if let Some(defs) = defs {
                    schema["$defs"] = defs;
                }
            }
            let structured = &result["structuredContent"];
            let validator = jsonschema::validator_for(&schema)
                .unwrap_or_else(|e| panic!("{name}: the outputSchema is no JSON Schema: {e}"));
            let problems: Vec<String> = validator
                .iter_errors(structured)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            assert!(
                problems.is_empty(),
                "{name} ({:?}, isError {failed}): the result does not fit its outputSchema: {problems:?}\n{structured}",
                self.version
            );
        }
        answer
    }

    /// The `outputSchema` `tools/list` shows for tool `name` in this era.
    async fn output_schema(&mut self, name: &str) -> Value {
        // The whole list, whatever toolsets the client narrowed its own to.
        let path = std::mem::replace(&mut self.path, "/mcp".into());
        let answer = if self.session.is_some() {
            self.legacy("tools/list", json!({})).await
        } else {
            self.modern("tools/list", json!({})).await
        };
        self.path = path;
        answer.result()["tools"]
            .as_array()
            .and_then(|tools| tools.iter().find(|t| t["name"] == name))
            .map(|tool| tool["outputSchema"].clone())
            .unwrap_or_else(|| panic!("{name} has no outputSchema: {}", answer.text))
    }

    pub async fn tool_names(&mut self) -> Vec<String> {
        let answer = if self.session.is_some() {
            self.legacy("tools/list", json!({})).await
        } else {
            self.modern("tools/list", json!({})).await
        };
        answer.result()["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str().map(str::to_string))
            .collect()
    }
}

pub fn meta(version: &str) -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": version,
           "io.modelcontextprotocol/clientCapabilities": {},
           "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"}})
}

pub async fn read(resp: reqwest::Response) -> Answer {
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let text = resp.text().await.unwrap_or_default();
    let json_text = match text.lines().find_map(|l| l.strip_prefix("data: ")) {
        Some(data) => data.to_string(),
        None => text.clone(),
    };
    let body = serde_json::from_str(&json_text).unwrap_or(Value::Null);
    Answer {
        status,
        headers,
        text,
        body,
    }
}

/// The REST error code an `isError` tool result carries.
#[track_caller]
pub fn tool_error(answer: &Answer) -> String {
    let result = answer.result();
    assert_eq!(result["isError"], true, "{}", answer.text);
    result["structuredContent"]["code"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The structured content of a successful tool result.
#[track_caller]
pub fn tool_ok(answer: &Answer) -> Value {
    let result = answer.result();
    assert!(
        result.get("isError").is_none_or(|e| e == false),
        "{}",
        answer.text
    );
    let text: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap_or_default())
            .expect("JSON text");
    assert_eq!(
        text, result["structuredContent"],
        "text and structured content agree"
    );
    result["structuredContent"].clone()
}

/// The scope a 403 step-up challenge names: a call outside the grant is refused over HTTP, with
/// `WWW-Authenticate: Bearer error="insufficient_scope", scope="…", resource_metadata="…"`.
#[track_caller]
pub fn step_up(answer: &Answer) -> String {
    assert_eq!(answer.status, 403, "{}", answer.text);
    let challenge = answer.header("www-authenticate");
    assert!(
        challenge.starts_with("Bearer error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(
        challenge.contains("resource_metadata=\"http://")
            && challenge.contains("/.well-known/oauth-protected-resource/mcp\""),
        "{challenge}"
    );
    assert_eq!(answer.body["error"]["data"]["code"], "insufficient_scope");
    let scope = challenge
        .split("scope=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
        .to_string();
    assert_eq!(answer.body["error"]["data"]["scope"], scope.as_str());
    scope
}
