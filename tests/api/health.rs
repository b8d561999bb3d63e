use reqwest::Method;

use crate::helpers::TestApp;

#[tokio::test]
async fn health_is_public_and_reports_the_crate_version() {
    let app = TestApp::spawn().await;
    let body = app
        .call(Method::GET, "/health", None, None)
        .await
        .expect(200);
    assert_eq!(body["status"], "ok");
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
    let timestamp = body["timestamp"].as_str().unwrap_or_default();
    assert_eq!(timestamp.len(), 24, "{timestamp}");
    assert!(timestamp.ends_with('Z'));
}

#[tokio::test]
async fn every_response_carries_a_distinct_request_id() {
    let app = TestApp::spawn().await;
    let mut ids = Vec::new();
    for path in [
        "/health",
        "/openapi.json",
        "/no-such-path",
        "/orgs/org_01ARZ3NDEKTSV4RRFFQ69G5FAV",
    ] {
        let reply = app.call(Method::GET, path, None, None).await;
        let id = reply.header("x-request-id");
        assert_eq!(id.len(), 26, "{path}: {id:?}");
        ids.push(id);
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 4);
}

#[tokio::test]
async fn the_landing_page_and_static_files_are_served() {
    let app = TestApp::spawn().await;
    let page = app.client.get(app.url("/")).send().await.expect("GET /");
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap_or_default().contains("Shipbase"));
    let css = app
        .client
        .get(app.url("/static/shipbase.css"))
        .send()
        .await
        .expect("GET css");
    assert_eq!(css.status(), 200);
    assert!(
        css.headers()["content-type"]
            .to_str()
            .unwrap_or_default()
            .starts_with("text/css")
    );
}
