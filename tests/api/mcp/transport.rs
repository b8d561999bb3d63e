//! Before any era: the Origin check, then the bearer token (live on every request).

use reqwest::Method;
use serde_json::json;

use super::{Mcp, read};
use crate::{browser::connect, helpers::TestApp};

fn initialize() -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

#[tokio::test]
async fn without_a_token_the_answer_points_to_the_resource_metadata() {
    let app = TestApp::spawn().await;
    let mut anonymous = Mcp::new(&app, "x");
    anonymous.token = None;
    let answer = anonymous.raw(&[], &initialize()).await;
    assert_eq!(answer.status, 401);
    assert_eq!(
        answer.header("www-authenticate"),
        format!(
            "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
            app.base_url
        )
    );
    let bad = Mcp::new(&app, "not-a-token").raw(&[], &initialize()).await;
    assert_eq!(bad.status, 401);
    assert!(
        bad.header("www-authenticate")
            .starts_with("Bearer error=\"invalid_token\""),
        "{}",
        bad.header("www-authenticate")
    );
    assert!(
        bad.header("www-authenticate")
            .contains("resource_metadata=")
    );
}

#[tokio::test]
async fn a_foreign_origin_is_refused_before_the_token_is_looked_at() {
    let app = TestApp::spawn_with("[server]\nallowed_origins = [\"http://localhost:6274\"]").await;
    let org = app.create_org();
    let connected = connect(&app, &org, &["read:shipments"]).await;
    let mcp = Mcp::new(&app, connected.access());
    let evil = mcp
        .raw(&[("origin", "http://evil.example")], &initialize())
        .await;
    assert_eq!(evil.status, 403);
    assert_eq!(evil.body["error"]["code"], -32600);
    assert!(evil.body.get("id").is_none());
    let mut anonymous = Mcp::new(&app, "x");
    anonymous.token = None;
    assert_eq!(
        anonymous
            .raw(&[("origin", "http://evil.example")], &initialize())
            .await
            .status,
        403
    );
    for origin in [app.base_url.as_str(), "http://localhost:6274"] {
        assert_eq!(
            mcp.raw(&[("origin", origin)], &initialize()).await.status,
            200,
            "{origin}"
        );
    }
}

#[tokio::test]
async fn disconnecting_ends_access_at_the_next_request_in_both_eras() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let mut connected = connect(&app, &org, &["read:orgs"]).await;
    let token = connected.access().to_string();
    let mut legacy = Mcp::new(&app, &token);
    legacy.initialize("2025-11-25").await;
    let mut modern = Mcp::new(&app, &token);
    super::tool_ok(&modern.call("get_organization", json!({})).await);
    super::tool_ok(&legacy.call("get_organization", json!({})).await);

    let page = connected.browser.get("/settings/apps").await;
    let action = page
        .html
        .split("action=\"")
        .filter_map(|s| s.split('"').next())
        .find(|a| a.ends_with("/disconnect"))
        .expect("form")
        .replace("&#x2f;", "/");
    let csrf = page.hidden("csrf_token").expect("csrf");
    assert_eq!(
        connected
            .browser
            .post(&action, &[("csrf_token", &csrf)])
            .await
            .status,
        303
    );

    assert_eq!(modern.call("get_organization", json!({})).await.status, 401);
    assert_eq!(legacy.call("get_organization", json!({})).await.status, 401);
}

#[tokio::test]
async fn api_tokens_work_too_within_their_scopes() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let token = app.create_token(&org, "read:shipments");
    let mut mcp = Mcp::new(&app, &token);
    assert_eq!(
        mcp.tool_names().await,
        [
            "list_shipments",
            "get_shipment",
            "get_shipment_document",
            "merge_documents",
            "list_pickups",
            "get_pickup",
            "list_manifests",
            "get_manifest",
            "list_shipment_notifications",
            "track",
            "find"
        ]
    );
    let listed = super::tool_ok(&mcp.call("list_shipments", json!({})).await);
    assert_eq!(listed["total"], 0);
    let rest = app
        .get(&format!("/orgs/{}/shipments", org.id), &token)
        .await
        .expect(200);
    assert_eq!(listed, rest);
}

#[tokio::test]
async fn get_is_not_offered_and_delete_ends_a_session() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let connected = connect(&app, &org, &["read:orgs"]).await;
    let get = app
        .client
        .request(Method::GET, app.url("/mcp"))
        .bearer_auth(connected.access())
        .header("accept", "text/event-stream")
        .send()
        .await
        .expect("GET");
    assert_eq!(get.status(), 405);
    assert_eq!(get.headers()["allow"], "POST, DELETE");

    let mut mcp = Mcp::new(&app, connected.access());
    mcp.initialize("2025-11-25").await;
    let session = mcp.session.clone().unwrap_or_default();
    let delete = |session: String| {
        let request = app
            .client
            .request(Method::DELETE, app.url("/mcp"))
            .bearer_auth(connected.access())
            .header("mcp-session-id", session);
        async move { read(request.send().await.expect("DELETE")).await }
    };
    assert_eq!(delete(session.clone()).await.status, 200);
    assert_eq!(mcp.legacy("ping", json!({})).await.status, 404);
    assert_eq!(delete(session).await.status, 404);
}
