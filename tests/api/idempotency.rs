//! `Idempotency-Key` (DESIGN §15): a retry replays the first answer and changes nothing, the same
//! key with another request is 409, a key whose request still runs is 409, keys are per
//! credential, and failed requests do not hold their key.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::{
    fixtures::{id_of, shipment_body},
    helpers::{Reply, TestApp, TestOrg},
    receiver::Receiver,
};

async fn send(app: &TestApp, token: &str, path: &str, key: &str, body: &Value) -> Reply {
    let request = app
        .client
        .request(Method::POST, app.url(path))
        .bearer_auth(token)
        .header("Idempotency-Key", key)
        .json(body);
    Reply::read(request.send().await.expect("request")).await
}

async fn shop() -> (TestApp, TestOrg, Value) {
    let app = TestApp::spawn_with("[webhooks]\nallow_private_targets = true").await;
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let body = shipment_body(&id_of(&address), &id_of(&carrier));
    (app, org, body)
}

#[tokio::test]
async fn a_retried_create_replays_the_first_answer_and_creates_once() {
    let (app, org, body) = shop().await;
    let path = format!("/orgs/{}/shipments", org.id);
    let first = send(&app, &org.token, &path, "create-1", &body).await;
    assert_eq!(first.status, 201);
    assert_eq!(first.header("idempotent-replayed"), "");
    let again = send(&app, &org.token, &path, "create-1", &body).await;
    assert_eq!(again.status, 201);
    assert_eq!(again.header("idempotent-replayed"), "true");
    assert_eq!(again.header("content-type"), "application/json");
    assert_eq!(again.body, first.body);
    let list = app.get(&path, &org.token).await.expect(200);
    assert_eq!(list["total"], 1);
    // Another key is another request.
    assert_eq!(
        send(&app, &org.token, &path, "create-2", &body)
            .await
            .status,
        201
    );
    assert_eq!(app.get(&path, &org.token).await.expect(200)["total"], 2);
}

#[tokio::test]
async fn a_retried_booking_books_once() {
    let (app, org, body) = shop().await;
    let shipment = app.create_shipment(&org, body).await;
    let path = format!("/orgs/{}/shipments/{}/book", org.id, id_of(&shipment));
    let first = send(&app, &org.token, &path, "book-1", &json!({})).await;
    assert_eq!(first.status, 200, "{}", first.text);
    let again = send(&app, &org.token, &path, "book-1", &json!({})).await;
    assert_eq!(
        (again.status.as_u16(), again.header("idempotent-replayed")),
        (200, "true".into())
    );
    assert_eq!(
        again.body["tracking"]["number"],
        first.body["tracking"]["number"]
    );
    let now = app
        .get(
            &format!("/orgs/{}/shipments/{}", org.id, id_of(&shipment)),
            &org.token,
        )
        .await
        .expect(200);
    assert_eq!(now["documents"].as_array().map(Vec::len), Some(1));
    assert_eq!(now["tracking"]["number"], first.body["tracking"]["number"]);
    // Without the key, booking again is refused: the shipment is booked.
    app.post(&path, &org.token, json!({}))
        .await
        .problem(409, "invalid_state");
}

#[tokio::test]
async fn the_same_key_with_another_request_is_409() {
    let (app, org, body) = shop().await;
    let path = format!("/orgs/{}/shipments", org.id);
    assert_eq!(send(&app, &org.token, &path, "k", &body).await.status, 201);
    let mut other = body.clone();
    other["reference"] = json!("ANOTHER");
    send(&app, &org.token, &path, "k", &other)
        .await
        .problem(409, "idempotency_key_reused");
    let order_channels = format!("/orgs/{}/order-channels", org.id);
    send(
        &app,
        &org.token,
        &order_channels,
        "k",
        &json!({"name": "M", "type": "manual"}),
    )
    .await
    .problem(409, "idempotency_key_reused");
    assert_eq!(app.get(&path, &org.token).await.expect(200)["total"], 1);
}

#[tokio::test]
async fn a_key_whose_request_is_still_running_is_409() {
    let (app, org, _) = shop().await;
    let receiver = Receiver::start().await;
    receiver.delay("/slow", Duration::from_millis(1500));
    let webhook = app
        .post(
            &format!("/orgs/{}/webhooks", org.id),
            &org.token,
            json!({"name": "slow", "url": receiver.url("/slow"), "events": ["order.created"]}),
        )
        .await
        .expect(201);
    let path = format!("/orgs/{}/webhooks/{}/test", org.id, id_of(&webhook));
    let empty = json!({});
    let (first, second) = {
        let slow = send(&app, &org.token, &path, "test-1", &empty);
        let racer = async {
            receiver.wait_for("/slow", 1).await;
            send(&app, &org.token, &path, "test-1", &json!({})).await
        };
        tokio::join!(slow, racer)
    };
    second.problem(409, "idempotency_key_in_use");
    assert_eq!(first.status, 200);
    let replay = send(&app, &org.token, &path, "test-1", &json!({})).await;
    assert_eq!(replay.header("idempotent-replayed"), "true");
    assert_eq!(replay.body, first.body);
    assert_eq!(receiver.to("/slow").len(), 1, "sent once");
}

#[tokio::test]
async fn keys_belong_to_one_credential_and_failures_do_not_hold_them() {
    let (app, org, body) = shop().await;
    let other_token = app.create_token(&org, "read:all write:all");
    let path = format!("/orgs/{}/shipments", org.id);
    assert_eq!(
        send(&app, &org.token, &path, "shared", &body).await.status,
        201
    );
    let other = send(&app, &other_token, &path, "shared", &body).await;
    assert_eq!(
        (other.status.as_u16(), other.header("idempotent-replayed")),
        (201, String::new())
    );
    assert_eq!(app.get(&path, &org.token).await.expect(200)["total"], 2);

    let mut invalid = body.clone();
    invalid["parcels"] = json!([]);
    send(&app, &org.token, &path, "fails", &invalid)
        .await
        .problem(400, "validation_failed");
    assert_eq!(
        send(&app, &org.token, &path, "fails", &body).await.status,
        201
    );
}

#[tokio::test]
async fn keys_must_be_1_to_255_characters() {
    let (app, org, body) = shop().await;
    let path = format!("/orgs/{}/shipments", org.id);
    let problem = send(&app, &org.token, &path, &"k".repeat(256), &body)
        .await
        .problem(400, "validation_failed");
    assert_eq!(problem["errors"][0]["field"], "Idempotency-Key");
    send(&app, &org.token, &path, "", &body)
        .await
        .problem(400, "validation_failed");
    assert_eq!(
        send(&app, &org.token, &path, &"k".repeat(255), &body)
            .await
            .status,
        201
    );
}

#[tokio::test]
async fn a_read_only_post_is_replayed_too() {
    let (app, org, _) = shop().await;
    let path = format!("/orgs/{}/shipping-quote", org.id);
    let body = json!({"destination": {"country": "DK"}, "items": [{"quantity": 1, "grams": 100, "price": 1000}]});
    let first = send(&app, &org.token, &path, "quote", &body).await;
    assert_eq!(first.status, 200);
    let again = send(&app, &org.token, &path, "quote", &body).await;
    assert_eq!(
        (again.header("idempotent-replayed"), again.body),
        ("true".into(), first.body)
    );
}

#[tokio::test]
async fn keys_are_looked_at_only_once_the_credential_authenticates() {
    let app = TestApp::spawn_with("[limits]\nrate_per_second = 1\nburst = 9").await;
    let org = app.create_org();
    let path = format!("/orgs/{}/shipping-quote", org.id);
    let body = json!({"destination": {"country": "DK"}, "items": [{"quantity": 1, "grams": 100, "price": 1000}]});
    // Authenticated once, so a keyed request spends one request of the budget, not two.
    let first = send(&app, &org.token, &path, "k", &body).await;
    assert_eq!(
        (first.status.as_u16(), first.header("ratelimit-remaining")),
        (200, "9".into())
    );

    // Someone else's or no valid credential: 401, whatever keys exist.
    let stranger = format!("shb_{}", "A".repeat(43));
    send(&app, &stranger, &path, "k", &body)
        .await
        .problem(401, "unauthenticated");

    // A revoked token's answers are not replayed to it.
    let created = app
        .post(
            &format!("/orgs/{}/api-tokens", org.id),
            &org.token,
            json!({"name": "ci", "scopes": ["read:all"]}),
        )
        .await
        .expect(201);
    let token = created["token"].as_str().expect("token").to_string();
    assert_eq!(send(&app, &token, &path, "mine", &body).await.status, 200);
    let token_path = format!(
        "/orgs/{}/api-tokens/{}",
        org.id,
        id_of(&created["apiToken"])
    );
    app.delete(&token_path, &org.token).await.expect(200);
    send(&app, &token, &path, "mine", &body)
        .await
        .problem(401, "unauthenticated");
}
