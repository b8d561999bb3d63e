//! A shipment's create confirms a kept API token in its write's transaction (`auth::Pending`):
//! what another process changes meanwhile is seen by the create itself, and every refusal is
//! answered only once the credential is confirmed. The revocations here are made by the command
//! line, another process, so the server still keeps each token when the create comes.

use serde_json::{Value, json};

use crate::{
    fixtures::{id_of, shipment_body},
    helpers::{Reply, TestApp, TestOrg},
};

/// A new token of `org` with `scopes`, used once so that the server keeps its credential; the
/// token and its id.
async fn kept_token(app: &TestApp, org: &TestOrg, scopes: &[&str]) -> (String, String) {
    let (token, record) = app
        .create_api_token(org, json!({"name": "kept", "scopes": scopes}))
        .await;
    app.get(&format!("/orgs/{}/shipments?limit=1", org.id), &token)
        .await
        .expect(200);
    (token, id_of(&record))
}

fn revoke(app: &TestApp, token_id: &str) {
    let out = app.cli(&["token", "revoke", token_id]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

async fn total(app: &TestApp, org: &TestOrg) -> Value {
    let path = format!("/orgs/{}/shipments", org.id);
    app.get(&path, &org.token).await.expect(200)["total"].clone()
}

#[tokio::test]
async fn a_kept_token_creating_a_shipment_is_confirmed_in_the_write() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let body = shipment_body(&id_of(&address), &id_of(&carrier));
    let path = format!("/orgs/{}/shipments", org.id);
    let write = ["write:shipments"];

    // Kept, and another token revoked meanwhile: the create reads this one again and goes on.
    let (token, _) = kept_token(&app, &org, &write).await;
    let (_, other) = kept_token(&app, &org, &write).await;
    revoke(&app, &other);
    let made = app.post(&path, &token, body.clone()).await.expect(201);
    assert_eq!(made["reference"], "REF-1001");
    assert_eq!(made["status"], "pending");
    assert_eq!(total(&app, &org).await, 1);

    // Revoked while kept: 401, and nothing is stored.
    let (token, id) = kept_token(&app, &org, &write).await;
    revoke(&app, &id);
    app.post(&path, &token, body.clone())
        .await
        .problem(401, "unauthenticated");
    assert_eq!(total(&app, &org).await, 1);

    // Its body's own problems, even an id the organization does not have, are not told.
    let mut unknown = body.clone();
    unknown["senderAddressId"] = json!("sadr_01JAAAAAAAAAAAAAAAAAAAAAAA");
    let mut broken = unknown.clone();
    broken["parcels"] = json!([]);
    for sent in [json!({}), unknown, broken] {
        let (token, id) = kept_token(&app, &org, &write).await;
        revoke(&app, &id);
        app.post(&path, &token, sent.clone())
            .await
            .problem(401, "unauthenticated");
    }

    // Nor is a scope it lacks: a refusal by what was kept is confirmed first.
    let (token, id) = kept_token(&app, &org, &["read:shipments"]).await;
    app.post(&path, &token, body.clone())
        .await
        .problem(403, "insufficient_scope");
    revoke(&app, &id);
    app.post(&path, &token, body.clone())
        .await
        .problem(401, "unauthenticated");
    assert_eq!(total(&app, &org).await, 1);

    // An idempotent create authenticates ahead, in full.
    let (token, id) = kept_token(&app, &org, &write).await;
    revoke(&app, &id);
    let request = app
        .client
        .post(app.url(&path))
        .bearer_auth(&token)
        .header("Idempotency-Key", "kept-1")
        .json(&body);
    Reply::read(request.send().await.expect("request"))
        .await
        .problem(401, "unauthenticated");
    assert_eq!(total(&app, &org).await, 1);
}
