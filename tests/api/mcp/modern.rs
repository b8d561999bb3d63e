//! The stateless revision 2026-07-28: `server/discover`, per-request `_meta`, the mirrored
//! headers and their errors, `resultType` and cache hints, no sessions.

use base64::{Engine, engine::general_purpose::STANDARD};
use serde_json::{Value, json};

use super::{MODERN, Mcp, meta};
use crate::{browser::connect, helpers::TestApp};

async fn agent(app: &TestApp, scopes: &[&str]) -> String {
    let org = app.create_org();
    connect(app, &org, scopes).await.access().to_string()
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[tokio::test]
async fn discover_describes_the_server_statelessly() {
    let app = TestApp::spawn().await;
    let token = agent(&app, &["read:shipments"]).await;
    let mut mcp = Mcp::new(&app, &token);
    let answer = mcp.modern("server/discover", json!({})).await;
    assert_eq!(answer.header("mcp-session-id"), "");
    assert!(
        answer
            .header("content-type")
            .starts_with("application/json")
    );
    let result = answer.result();
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["supportedVersions"],
        json!([MODERN, "2025-11-25", "2025-06-18", "2025-03-26"])
    );
    assert_eq!(result["capabilities"]["tools"], json!({}));
    assert!(
        result["instructions"]
            .as_str()
            .is_some_and(|i| i.contains("Shipbase"))
    );
    assert!(result["ttlMs"].as_u64().is_some());
    assert_eq!(result["cacheScope"], "private");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "shipbase"
    );
}

#[tokio::test]
async fn missing_meta_mismatched_headers_and_other_versions_are_400_with_their_codes() {
    let app = TestApp::spawn().await;
    let token = agent(&app, &["read:orgs"]).await;
    let mcp = Mcp::new(&app, &token);
    let headers =
        |method: &'static str| vec![("mcp-protocol-version", MODERN), ("mcp-method", method)];
    let meta_only_version = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}});
    for (body, headers, code) in [
        (
            request(1, "server/discover", json!({})),
            headers("server/discover"),
            -32602,
        ),
        (
            request(2, "server/discover", meta_only_version),
            headers("server/discover"),
            -32602,
        ),
        (
            request(3, "server/discover", json!({"_meta": meta(MODERN)})),
            vec![("mcp-method", "server/discover")],
            -32020,
        ),
        (
            request(4, "server/discover", json!({"_meta": meta(MODERN)})),
            vec![
                ("mcp-protocol-version", "2025-11-25"),
                ("mcp-method", "server/discover"),
            ],
            -32020,
        ),
        (
            request(5, "server/discover", json!({"_meta": meta(MODERN)})),
            headers("tools/list"),
            -32020,
        ),
        (
            request(6, "server/discover", json!({"_meta": meta(MODERN)})),
            vec![("mcp-protocol-version", MODERN)],
            -32020,
        ),
        (
            request(
                7,
                "tools/call",
                json!({"name": "get_organization", "_meta": meta(MODERN)}),
            ),
            headers("tools/call"),
            -32020,
        ),
        (
            request(
                8,
                "tools/call",
                json!({"name": "get_organization", "_meta": meta(MODERN)}),
            ),
            vec![
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "tools/call"),
                ("mcp-name", "get_shipment"),
            ],
            -32020,
        ),
        (
            request(9, "server/discover", json!({"_meta": meta("v999.0.0")})),
            vec![
                ("mcp-protocol-version", "v999.0.0"),
                ("mcp-method", "server/discover"),
            ],
            -32022,
        ),
    ] {
        let answer = mcp.raw(&headers, &body).await;
        assert_eq!(
            (answer.status, answer.code()),
            (400, code),
            "{body}: {}",
            answer.text
        );
        assert_eq!(answer.body["id"], body["id"], "the error names the request");
    }
    let answer = mcp
        .raw(
            &[
                ("mcp-protocol-version", "2025-11-25"),
                ("mcp-method", "server/discover"),
            ],
            &request(10, "server/discover", json!({"_meta": meta("2025-11-25")})),
        )
        .await;
    assert_eq!((answer.status, answer.code()), (400, -32022));
    assert_eq!(answer.body["error"]["data"]["requested"], "2025-11-25");
    assert_eq!(answer.body["error"]["data"]["supported"][0], MODERN);
}

#[tokio::test]
async fn names_may_come_base64_encoded_or_padded_and_header_names_in_any_case() {
    let app = TestApp::spawn().await;
    let token = agent(&app, &["read:orgs"]).await;
    let mcp = Mcp::new(&app, &token);
    let body = request(
        1,
        "tools/call",
        json!({"name": "get_organization", "arguments": {}, "_meta": meta(MODERN)}),
    );
    let encoded = format!("=?base64?{}?=", STANDARD.encode("get_organization"));
    for name in [encoded.as_str(), "  get_organization  "] {
        let answer = mcp
            .raw(
                &[
                    ("MCP-PROTOCOL-VERSION", MODERN),
                    ("mcp-METHOD", "tools/call"),
                    ("Mcp-Name", name),
                ],
                &body,
            )
            .await;
        assert_eq!(answer.result()["resultType"], "complete", "{name}");
    }
    let upper = mcp
        .raw(
            &[
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "TOOLS/CALL"),
                ("mcp-name", "get_organization"),
            ],
            &body,
        )
        .await;
    assert_eq!(
        (upper.status, upper.code()),
        (400, -32020),
        "values are case-sensitive"
    );
}

#[tokio::test]
async fn removed_and_unknown_methods_are_404_method_not_found() {
    let app = TestApp::spawn().await;
    let token = agent(&app, &["read:orgs"]).await;
    let mut mcp = Mcp::new(&app, &token);
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "subscriptions/listen",
        "unknown/method",
    ] {
        let answer = mcp.modern(method, json!({})).await;
        assert_eq!(
            (answer.status, answer.code()),
            (404, -32601),
            "{method}: {}",
            answer.text
        );
    }
    let init = mcp
        .modern("initialize", json!({"protocolVersion": "2025-11-25"}))
        .await;
    assert_eq!(init.body["error"]["data"]["supported"][1], "2025-11-25");
}

#[tokio::test]
async fn lists_carry_result_type_and_cache_hints_and_notifications_are_accepted() {
    let app = TestApp::spawn().await;
    let token = agent(&app, &["read:orgs"]).await;
    let mut mcp = Mcp::new(&app, &token);
    for (method, key) in [
        ("tools/list", "tools"),
        ("resources/list", "resources"),
        ("resources/templates/list", "resourceTemplates"),
    ] {
        let answer = mcp.modern(method, json!({})).await;
        let result = answer.result();
        assert_eq!(
            (result["resultType"].as_str(), result["cacheScope"].as_str()),
            (Some("complete"), Some("private")),
            "{method}"
        );
        assert!(
            result["ttlMs"].as_u64().is_some() && result[key].is_array(),
            "{method}: {}",
            answer.text
        );
    }
    // Documents are read by URI: one template, no listed resources, and no prompts at all.
    let templates = mcp.modern("resources/templates/list", json!({})).await;
    let org_id = templates.result()["resourceTemplates"][0]["uriTemplate"]
        .as_str()
        .and_then(|t| t.strip_prefix("shipbase://orgs/"))
        .and_then(|t| t.strip_suffix("/documents/{documentId}"))
        .unwrap_or_default()
        .to_string();
    assert!(org_id.starts_with("org_"), "{}", templates.text);
    let listed = mcp.modern("resources/list", json!({})).await;
    assert_eq!(listed.result()["resources"], json!([]));
    for method in ["prompts/list", "prompts/get"] {
        let answer = mcp.modern(method, json!({"name": "x"})).await;
        assert_eq!(answer.code(), -32601, "{method}: {}", answer.text);
    }
    let discovered = mcp.modern("server/discover", json!({})).await;
    assert_eq!(
        discovered.result()["capabilities"]["resources"],
        json!({}),
        "{}",
        discovered.text
    );
    assert!(discovered.result()["capabilities"].get("prompts").is_none());
    let bad_cursor = mcp.modern("tools/list", json!({"cursor": "x"})).await;
    assert_eq!(bad_cursor.code(), -32602);
    let missing = mcp
        .modern("resources/read", json!({"uri": "test://nothing"}))
        .await;
    assert_eq!(
        (missing.code(), &missing.body["error"]["data"]["uri"]),
        (-32602, &json!("test://nothing"))
    );
    let note = mcp.raw(&[("mcp-protocol-version", MODERN)], &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"_meta": meta(MODERN)}})).await;
    assert_eq!((note.status, note.text.as_str()), (202, ""));
}

#[tokio::test]
async fn answers_come_as_an_event_stream_when_that_is_all_the_client_accepts() {
    let app = TestApp::spawn().await;
    let token = agent(&app, &["read:orgs"]).await;
    let mcp = Mcp::new(&app, &token);
    let body = request(7, "server/discover", json!({"_meta": meta(MODERN)}));
    let answer = mcp
        .raw(
            &[
                ("accept", "text/event-stream"),
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "server/discover"),
            ],
            &body,
        )
        .await;
    assert_eq!(answer.status, 200);
    assert!(
        answer
            .header("content-type")
            .starts_with("text/event-stream")
    );
    assert!(
        answer.text.starts_with("event: message\ndata: {"),
        "{}",
        answer.text
    );
    assert_eq!(answer.body["id"], 7);
    let refused = mcp
        .raw(
            &[
                ("accept", "text/html"),
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "server/discover"),
            ],
            &body,
        )
        .await;
    assert_eq!(refused.status, 406);
    let garbage = mcp.raw(&[], &json!("not an object")).await;
    assert_eq!((garbage.status, garbage.code()), (400, -32600));
    let resp = app
        .client
        .post(app.url("/mcp"))
        .bearer_auth(&token)
        .body("{nope")
        .send()
        .await
        .expect("POST");
    let parse = super::read(resp).await;
    assert_eq!((parse.status, parse.code()), (400, -32700));
}
