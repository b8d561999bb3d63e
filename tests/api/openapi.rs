//! The OpenAPI document is the contract: it changes only on purpose. Run with
//! `UPDATE_SNAPSHOTS=1 cargo test --test api openapi` to accept a change.

use crate::helpers::TestApp;
use reqwest::Method;

const SNAPSHOT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/api/snapshots/openapi.json"
);

#[tokio::test]
async fn the_openapi_document_matches_the_committed_snapshot() {
    let app = TestApp::spawn().await;
    let document = app
        .call(Method::GET, "/openapi.json", None, None)
        .await
        .expect(200);
    let pretty = serde_json::to_string_pretty(&document).unwrap_or_default() + "\n";
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(SNAPSHOT, &pretty)
            .unwrap_or_else(|e| panic!("cannot write {SNAPSHOT}: {e}"));
    }
    let committed = std::fs::read_to_string(SNAPSHOT).unwrap_or_default();
    assert!(
        committed == pretty,
        "/openapi.json differs from {SNAPSHOT}; if the change is intended, run UPDATE_SNAPSHOTS=1 cargo test --test api openapi"
    );
}

#[tokio::test]
async fn every_operation_documents_its_scope_and_error_responses() {
    let app = TestApp::spawn().await;
    let document = app
        .call(Method::GET, "/openapi.json", None, None)
        .await
        .expect(200);
    assert!(
        document["openapi"]
            .as_str()
            .unwrap_or_default()
            .starts_with("3.")
    );
    assert_eq!(document["info"]["version"], env!("CARGO_PKG_VERSION"));
    let paths = document["paths"].as_object().cloned().unwrap_or_default();
    assert!(!paths.is_empty());
    for (path, item) in paths {
        for (method, op) in item.as_object().cloned().unwrap_or_default() {
            assert!(
                op["operationId"].is_string(),
                "{method} {path} has no operationId"
            );
            if !path.starts_with("/orgs/") {
                continue;
            }
            let responses = op["responses"].as_object().cloned().unwrap_or_default();
            for status in ["400", "401", "403", "404", "500"] {
                assert!(
                    responses.contains_key(status),
                    "{method} {path} does not document {status}"
                );
            }
            let text = format!(
                "{} {}",
                op["summary"].as_str().unwrap_or_default(),
                op["description"].as_str().unwrap_or_default()
            );
            assert!(
                text.contains("Scope: `"),
                "{method} {path} does not name its scope: {op}"
            );
            assert!(
                op["security"].is_array(),
                "{method} {path} has no security requirement"
            );
        }
    }
}

#[tokio::test]
async fn swagger_ui_is_served_at_docs() {
    let app = TestApp::spawn().await;
    let resp = app
        .client
        .get(app.url("/docs"))
        .send()
        .await
        .expect("GET /docs");
    assert_eq!(resp.status(), 200);
    assert!(
        resp.headers()["content-type"]
            .to_str()
            .unwrap_or_default()
            .starts_with("text/html")
    );
    assert!(
        resp.text()
            .await
            .unwrap_or_default()
            .to_lowercase()
            .contains("swagger")
    );
}

/// Every route the router serves is an operation of the document, and the other way round
/// (the page at `/` is the one route left out on purpose).
#[test]
fn the_document_lists_exactly_the_routes_the_router_serves() {
    use poem_openapi::OpenApi;
    use std::collections::{BTreeSet, HashMap};

    let mut table = HashMap::new();
    shipbase::api::all().add_routes(&mut table);
    let served: BTreeSet<String> = table
        .iter()
        .flat_map(|(path, methods)| {
            methods
                .keys()
                .map(move |method| format!("{} {}", method.as_str().to_lowercase(), shape(path)))
        })
        .filter(|route| route != "get /")
        .collect();
    assert!(served.len() > 40, "{served:?}");

    let document = shipbase::api::openapi::document();
    let documented: BTreeSet<String> = document["paths"]
        .as_object()
        .into_iter()
        .flatten()
        .flat_map(|(path, item)| {
            item.as_object()
                .into_iter()
                .flatten()
                .map(move |(method, _)| format!("{method} {}", shape(path)))
        })
        .collect();
    assert_eq!(served, documented);
}

/// A path with its parameters' names left out: the router numbers them (`:param0`), the
/// document names them (`{orgId}`).
fn shape(path: &str) -> String {
    path.split('/')
        .map(|segment| {
            if segment.starts_with(':') || segment.starts_with('{') {
                "{}"
            } else {
                segment
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}
