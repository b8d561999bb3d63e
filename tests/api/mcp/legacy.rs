//! The handshake revisions (2025-11-25, 2025-06-18, 2025-03-26): `initialize`, sessions bound
//! to the credential that opened them, the version header, and results in each revision's shape.

use serde_json::json;

use super::Mcp;
use crate::{browser::connect, helpers::TestApp};

#[tokio::test]
async fn initialize_negotiates_a_version_and_opens_a_session() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let connected = connect(&app, &org, &["read:shipments"]).await;
    for (asked, agreed) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("1999-01-01", "2025-11-25"),
    ] {
        let mut mcp = Mcp::new(&app, connected.access());
        let result = mcp.initialize(asked).await;
        assert_eq!(result["protocolVersion"], agreed, "{asked}");
        assert_eq!(
            result["capabilities"]["tools"],
            json!({"listChanged": false})
        );
        assert_eq!(result["serverInfo"]["name"], "shipbase");
        assert!(result.get("resultType").is_none());
        let session = mcp.session.clone().unwrap_or_default();
        assert!(
            session.len() >= 32 && session.bytes().all(|b| (0x21..=0x7e).contains(&b)),
            "{session}"
        );
        let ping = mcp.legacy("ping", json!({})).await;
        assert_eq!(ping.result(), &json!({}), "ping answers exactly {{}}");
    }
}

#[tokio::test]
async fn requests_need_their_own_live_session() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let first = connect(&app, &org, &["read:shipments"]).await;
    let second = connect(&app, &org, &["read:shipments"]).await;
    let mut mcp = Mcp::new(&app, first.access());
    mcp.initialize("2025-06-18").await;

    let mut without = Mcp::new(&app, first.access());
    without.version = Some("2025-06-18".into());
    let missing = without.legacy("tools/list", json!({})).await;
    assert_eq!(missing.status, 400, "{}", missing.text);
    let mut unknown = Mcp::new(&app, first.access());
    unknown.session = Some("no-such-session".into());
    assert_eq!(unknown.legacy("tools/list", json!({})).await.status, 404);
    // Another connection (of the same user) cannot use the session.
    let mut stolen = Mcp::new(&app, second.access());
    stolen.session.clone_from(&mcp.session);
    assert_eq!(stolen.legacy("tools/list", json!({})).await.status, 404);

    // The version header must be a served legacy revision, the session's.
    mcp.version = Some("2025-11-25".into());
    assert_eq!(mcp.legacy("tools/list", json!({})).await.status, 400);
    mcp.version = Some("1999-01-01".into());
    assert_eq!(mcp.legacy("tools/list", json!({})).await.status, 400);
    mcp.version = None;
    assert_eq!(
        mcp.legacy("tools/list", json!({})).await.status,
        200,
        "no header means 2025-03-26, accepted"
    );
    let unknown_method = {
        mcp.version = Some("2025-06-18".into());
        mcp.legacy("resources/subscribe", json!({})).await
    };
    assert_eq!(
        (unknown_method.status, unknown_method.code()),
        (200, -32601)
    );
}

#[tokio::test]
async fn results_have_the_shape_of_each_revision() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let connected = connect(&app, &org, &["read:orgs", "read:carriers"]).await;
    let rest = app
        .get(&format!("/orgs/{}", org.id), connected.access())
        .await
        .expect(200);
    for version in ["2025-11-25", "2025-06-18"] {
        let mut mcp = Mcp::new(&app, connected.access());
        mcp.initialize(version).await;
        let list = mcp.legacy("tools/list", json!({})).await;
        assert!(list.result().get("resultType").is_none() && list.result().get("ttlMs").is_none());
        assert_eq!(list.result()["tools"][0]["title"], "Get organization");
        let answer = mcp.call("get_organization", json!({})).await;
        assert_eq!(super::tool_ok(&answer), rest, "{version}");
        assert!(answer.result().get("resultType").is_none());
        // A list is an object there: {"data": […]}, the REST list inside.
        let carriers = mcp.call("list_available_carriers", json!({})).await;
        let structured = &carriers.result()["structuredContent"];
        assert!(structured.is_object(), "{version}: {}", carriers.text);
        assert_eq!(
            structured["data"][0]["slug"], "sandbox",
            "{version}: {}",
            carriers.text
        );
    }
    let mut oldest = Mcp::new(&app, connected.access());
    oldest.initialize("2025-03-26").await;
    let list = oldest.legacy("tools/list", json!({})).await;
    assert!(
        list.result()["tools"][0].get("title").is_none(),
        "2025-03-26 tools have no title"
    );
    let answer = oldest.call("get_organization", json!({})).await;
    let result = answer.result();
    assert!(result.get("structuredContent").is_none());
    let text: serde_json::Value =
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap_or_default())
            .expect("JSON");
    assert_eq!(text, rest);
}
