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

#[tokio::test]
async fn static_files_are_revalidated_with_their_etag() {
    let app = TestApp::spawn().await;
    let url = app.url("/static/shipbase.css");
    let first = app.client.get(&url).send().await.expect("GET css");
    let etag = first.headers()["etag"]
        .to_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        etag.starts_with('"') && etag.ends_with('"') && etag.len() == 66,
        "{etag}"
    );
    assert_eq!(first.headers()["cache-control"], "public, max-age=300");
    let again = app
        .client
        .get(&url)
        .header("if-none-match", &etag)
        .send()
        .await
        .expect("GET");
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["etag"].to_str().unwrap_or_default(), etag);
    let stale = app
        .client
        .get(&url)
        .header("if-none-match", "\"other\"")
        .send()
        .await
        .expect("GET");
    assert_eq!(stale.status(), 200);
    let head = app.client.head(&url).send().await.expect("HEAD");
    assert_eq!(head.status(), 200);
    let missing = app
        .client
        .get(app.url("/static/nope.css"))
        .send()
        .await
        .expect("GET");
    assert_eq!(missing.status(), 404);
}
