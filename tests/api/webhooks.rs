//! Webhooks (SPEC rows 23–24, DESIGN §9): the resource, signed deliveries to a loopback
//! receiver, retries, 410, inactive endpoints, a restart with a pending delivery, the guard
//! against private targets, test deliveries, secret rotation and the delivery log.

use serde_json::{Value, json};

use crate::{
    fixtures::{id_of, shipment_body},
    helpers::{TestApp, TestOrg, error_fields},
    receiver::Receiver,
};

const PRIVATE_OK: &str = "[webhooks]\nallow_private_targets = true\nretry_scale = 0.001";

struct Setup {
    app: TestApp,
    org: TestOrg,
    receiver: Receiver,
    address_id: String,
    carrier_id: String,
}

impl Setup {
    async fn new(config: &str) -> Setup {
        let app = TestApp::spawn_with(config).await;
        let org = app.create_org();
        let (address, carrier) = app.create_address_and_carrier(&org).await;
        Setup {
            receiver: Receiver::start().await,
            address_id: id_of(&address),
            carrier_id: id_of(&carrier),
            app,
            org,
        }
    }

    fn path(&self, rest: &str) -> String {
        format!("/orgs/{}{rest}", self.org.id)
    }

    async fn webhook(&self, path: &str, extra: Value) -> Value {
        let mut body =
            json!({"name": "hook", "url": self.receiver.url(path), "events": ["shipment.created"]});
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        self.app
            .post(&self.path("/webhooks"), &self.org.token, body)
            .await
            .expect(201)
    }

    async fn shipment(&self) -> Value {
        self.app
            .create_shipment(&self.org, shipment_body(&self.address_id, &self.carrier_id))
            .await
    }

    async fn get(&self, rest: &str) -> Value {
        self.app
            .get(&self.path(rest), &self.org.token)
            .await
            .expect(200)
    }
}

#[tokio::test]
async fn a_webhook_is_created_read_listed_replaced_patched_and_deleted() {
    let s = Setup::new(PRIVATE_OK).await;
    let created = s
        .webhook(
            "/a",
            json!({"events": ["order.created", "order.created", "shipment.created"]}),
        )
        .await;
    let id = id_of(&created);
    assert!(id.starts_with("whk_"));
    assert_eq!(
        created["events"],
        json!(["order.created", "shipment.created"]),
        "duplicates dropped"
    );
    assert_eq!(created["isActive"], true);
    let secret = created["secret"].as_str().unwrap_or_default();
    assert!(
        secret.starts_with("whsec_") && secret.len() == 38,
        "{secret}"
    );
    assert_eq!(s.get(&format!("/webhooks/{id}")).await, created);
    let list = s.get("/webhooks").await;
    assert_eq!(
        (list["total"].as_u64(), list["data"][0]["id"].as_str()),
        (Some(1), Some(id.as_str()))
    );

    let replaced = s
        .app
        .put(
            &s.path(&format!("/webhooks/{id}")),
            &s.org.token,
            json!({"name": "renamed", "url": s.receiver.url("/b"), "events": ["tracking.updated"]}),
        )
        .await
        .expect(200);
    assert_eq!(
        (
            &replaced["name"],
            &replaced["events"],
            &replaced["isActive"],
            &replaced["secret"]
        ),
        (
            &json!("renamed"),
            &json!(["tracking.updated"]),
            &json!(true),
            &created["secret"]
        )
    );
    let patched = s
        .app
        .patch(
            &s.path(&format!("/webhooks/{id}")),
            &s.org.token,
            json!({"isActive": false}),
        )
        .await
        .expect(200);
    assert_eq!(
        (&patched["isActive"], &patched["name"]),
        (&json!(false), &json!("renamed"))
    );
    s.app
        .delete(&s.path(&format!("/webhooks/{id}")), &s.org.token)
        .await
        .expect(200);
    s.app
        .get(&s.path(&format!("/webhooks/{id}")), &s.org.token)
        .await
        .problem(404, "not_found");
}

#[tokio::test]
async fn invalid_webhooks_are_400_naming_the_field() {
    let s = Setup::new(PRIVATE_OK).await;
    let url = s.receiver.url("/x");
    for (body, field) in [
        (
            json!({"name": "", "url": url, "events": ["order.created"]}),
            "name",
        ),
        (
            json!({"name": "n".repeat(101), "url": url, "events": ["order.created"]}),
            "name",
        ),
        (
            json!({"name": "x", "url": "not a uri", "events": ["order.created"]}),
            "url",
        ),
        (
            json!({"name": "x", "url": "ftp://example.com/", "events": ["order.created"]}),
            "url",
        ),
        (json!({"name": "x", "url": url, "events": []}), "events"),
        (
            json!({"name": "x", "url": url, "events": ["shipment.exploded"]}),
            "events[0]",
        ),
        (json!({"url": url, "events": ["order.created"]}), "name"),
    ] {
        let problem = s
            .app
            .post(&s.path("/webhooks"), &s.org.token, body.clone())
            .await
            .problem(400, "validation_failed");
        assert_eq!(error_fields(&problem), [field], "{body}: {problem}");
    }
    assert_eq!(s.get("/webhooks").await["total"], 0);
}

#[tokio::test]
async fn deliveries_are_signed_standard_webhooks_with_the_event_as_payload() {
    let s = Setup::new(PRIVATE_OK).await;
    let webhook = s.webhook("/signed", json!({})).await;
    let shipment = s.shipment().await;
    let delivery = s.receiver.wait_for("/signed", 1).await.remove(0);
    let payload = delivery.json();
    assert_eq!(payload["type"], "shipment.created");
    assert_eq!(payload["orgId"], s.org.id);
    assert_eq!(payload["data"], shipment);
    assert_eq!(
        delivery.header("webhook-id"),
        payload["id"].as_str().unwrap_or_default()
    );
    assert_eq!(delivery.header("content-type"), "application/json");
    let timestamp: i64 = delivery
        .header("webhook-timestamp")
        .parse()
        .expect("unix seconds");
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    assert!((now - timestamp).abs() < 60);
    assert!(delivery.signed_with(webhook["secret"].as_str().unwrap_or_default()));
    assert!(!delivery.signed_with("whsec_AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEB"));

    // The receiver answers before the worker records the attempt: wait for the record.
    wait_for_log(&s, &id_of(&webhook), 1).await;
    let log = s
        .get(&format!("/webhooks/{}/deliveries", id_of(&webhook)))
        .await;
    assert_eq!(log["total"], 1);
    let attempt = &log["data"][0];
    assert_eq!(
        (
            &attempt["eventId"],
            &attempt["eventType"],
            &attempt["attempt"],
            &attempt["responseStatus"],
            &attempt["success"],
            &attempt["error"]
        ),
        (
            &payload["id"],
            &json!("shipment.created"),
            &json!(1),
            &json!(200),
            &json!(true),
            &Value::Null
        )
    );
}

#[tokio::test]
async fn a_failed_delivery_is_retried_with_the_same_id_and_logged() {
    let s = Setup::new(PRIVATE_OK).await;
    s.receiver.answer("/flaky", &[500, 503]);
    let webhook = s.webhook("/flaky", json!({})).await;
    s.shipment().await;
    let got = s.receiver.wait_for("/flaky", 3).await;
    assert_eq!(
        got.iter().map(|d| d.answered).collect::<Vec<_>>(),
        [500, 503, 200]
    );
    let ids: Vec<&str> = got.iter().map(|d| d.header("webhook-id")).collect();
    assert!(ids.iter().all(|id| *id == ids[0]));
    let secret = webhook["secret"].as_str().unwrap_or_default();
    assert!(got.iter().all(|d| d.signed_with(secret)));
    let log = wait_for_log(&s, &id_of(&webhook), 3).await;
    let attempts: Vec<(i64, bool)> = log
        .iter()
        .map(|a| {
            (
                a["attempt"].as_i64().unwrap_or(0),
                a["success"].as_bool().unwrap_or(true),
            )
        })
        .collect();
    assert_eq!(
        attempts,
        [(3, true), (2, false), (1, false)],
        "newest first"
    );
    assert_eq!(log[2]["error"], "the endpoint answered 500");
}

/// The delivery log once it holds `n` attempts (the log is written after the receiver answers).
async fn wait_for_log(s: &Setup, webhook_id: &str, n: usize) -> Vec<Value> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let log = s.get(&format!("/webhooks/{webhook_id}/deliveries")).await;
        let data = log["data"].as_array().cloned().unwrap_or_default();
        if data.len() >= n {
            return data;
        }
        assert!(std::time::Instant::now() < deadline, "log: {log}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_410_disables_the_webhook_and_it_receives_nothing_more() {
    let s = Setup::new(PRIVATE_OK).await;
    s.receiver.answer("/gone", &[410]);
    let webhook = s.webhook("/gone", json!({})).await;
    let other = s.webhook("/other", json!({})).await;
    s.shipment().await;
    s.receiver.wait_for("/gone", 1).await;
    wait_for_log(&s, &id_of(&webhook), 1).await;
    assert_eq!(
        s.get(&format!("/webhooks/{}", id_of(&webhook))).await["isActive"],
        false
    );
    s.shipment().await;
    s.receiver.wait_for("/other", 2).await;
    assert_eq!(s.receiver.to("/gone").len(), 1);
    assert_eq!(
        s.get(&format!("/webhooks/{}", id_of(&other))).await["isActive"],
        true
    );
}

#[tokio::test]
async fn inactive_webhooks_and_unsubscribed_events_get_nothing() {
    let s = Setup::new(PRIVATE_OK).await;
    let inactive = s.webhook("/inactive", json!({"isActive": false})).await;
    s.webhook("/orders-only", json!({"events": ["order.created"]}))
        .await;
    s.webhook("/active", json!({})).await;
    s.shipment().await;
    s.shipment().await;
    // Deliveries to one webhook go out in event order, and /active was made last: once it has
    // both, the others have had their chance.
    s.receiver.wait_for("/active", 2).await;
    assert!(s.receiver.to("/inactive").is_empty());
    assert!(s.receiver.to("/orders-only").is_empty());
    let log = s
        .get(&format!("/webhooks/{}/deliveries", id_of(&inactive)))
        .await;
    assert_eq!(log["total"], 0);
}

#[tokio::test]
async fn a_pending_delivery_survives_a_restart_and_is_delivered_after_it() {
    // Retries after 0.5 s: long enough to stop the server in between.
    let s = Setup::new("[webhooks]\nallow_private_targets = true\nretry_scale = 0.1").await;
    s.receiver.answer("/later", &[500]);
    let webhook = s.webhook("/later", json!({})).await;
    s.shipment().await;
    let first = s.receiver.wait_for("/later", 1).await.remove(0);
    wait_for_log(&s, &id_of(&webhook), 1).await;
    let Setup {
        app, org, receiver, ..
    } = s;
    let app = app.restart_with("").await;
    let second = receiver.wait_for("/later", 2).await.remove(1);
    assert_eq!(second.answered, 200);
    assert_eq!(second.header("webhook-id"), first.header("webhook-id"));
    // The attempt is recorded just after the receiver answered it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let log = app
            .get(
                &format!("/orgs/{}/webhooks/{}/deliveries", org.id, id_of(&webhook)),
                &org.token,
            )
            .await
            .expect(200);
        if log["data"][0]["attempt"] == 2 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "log: {log}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn private_and_loopback_targets_are_refused_unless_allowed() {
    let s = Setup::new("").await;
    for url in [
        "http://127.0.0.1:9/hook",
        "http://localhost:9/hook",
        "http://2130706433/hook",
        "http://0x7f.1/hook",
        "http://10.1.2.3/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/hook",
        "http://[::ffff:192.168.0.1]/hook",
        "http://[fd00::1]/hook",
        "http://0.0.0.0/hook",
    ] {
        let problem = s
            .app
            .post(
                &s.path("/webhooks"),
                &s.org.token,
                json!({"name": "x", "url": url, "events": ["order.created"]}),
            )
            .await
            .problem(400, "validation_failed");
        assert_eq!(error_fields(&problem), ["url"], "{url}: {problem}");
        // The answer names the setting that would allow it.
        assert!(
            problem["errors"][0]["message"]
                .as_str()
                .unwrap_or_default()
                .contains("webhooks.allow_private_targets = true"),
            "{url}: {problem}"
        );
    }
    assert_eq!(s.get("/webhooks").await["total"], 0);
}

#[tokio::test]
async fn a_private_target_saved_while_allowed_is_not_contacted_once_refused() {
    let s = Setup::new(PRIVATE_OK).await;
    let webhook = s.webhook("/private", json!({})).await;
    let Setup {
        app,
        org,
        receiver,
        address_id,
        carrier_id,
    } = s;
    let app = app
        .restart_with("[webhooks]\nallow_private_targets = false")
        .await;
    app.create_shipment(&org, shipment_body(&address_id, &carrier_id))
        .await;
    let path = format!("/orgs/{}/webhooks/{}/deliveries", org.id, id_of(&webhook));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let attempt = loop {
        let log = app.get(&path, &org.token).await.expect(200);
        if log["total"] != 0 {
            break log["data"][0].clone();
        }
        assert!(std::time::Instant::now() < deadline);
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(attempt["success"], false);
    assert_eq!(attempt["responseStatus"], Value::Null);
    assert!(
        attempt["error"]
            .as_str()
            .unwrap_or_default()
            .contains("non-public address"),
        "{attempt}"
    );
    assert!(receiver.to("/private").is_empty());
}

#[tokio::test]
async fn a_test_delivery_reports_how_the_endpoint_answered() {
    let s = Setup::new(PRIVATE_OK).await;
    let webhook = s.webhook("/test", json!({"isActive": false})).await;
    let id = id_of(&webhook);
    let attempt = s
        .app
        .post(
            &s.path(&format!("/webhooks/{id}/test")),
            &s.org.token,
            json!({}),
        )
        .await
        .expect(200);
    assert_eq!(
        (
            &attempt["eventType"],
            &attempt["responseStatus"],
            &attempt["success"]
        ),
        (&json!("webhook.test"), &json!(200), &json!(true))
    );
    let delivery = s.receiver.wait_for("/test", 1).await.remove(0);
    assert_eq!(delivery.json()["type"], "webhook.test");
    assert_eq!(delivery.json()["data"]["webhookId"], id);
    assert!(delivery.signed_with(webhook["secret"].as_str().unwrap_or_default()));

    s.receiver.answer("/test", &[418]);
    let failed = s
        .app
        .post(
            &s.path(&format!("/webhooks/{id}/test")),
            &s.org.token,
            json!({}),
        )
        .await
        .expect(200);
    assert_eq!(
        (&failed["responseStatus"], &failed["success"]),
        (&json!(418), &json!(false))
    );
    assert_eq!(
        s.get(&format!("/webhooks/{id}/deliveries")).await["total"],
        2
    );
}

#[tokio::test]
async fn a_rotated_secret_signs_beside_the_old_one() {
    let s = Setup::new(PRIVATE_OK).await;
    let webhook = s.webhook("/rotated", json!({})).await;
    let id = id_of(&webhook);
    let rotated = s
        .app
        .post(
            &s.path(&format!("/webhooks/{id}/rotate-secret")),
            &s.org.token,
            json!({}),
        )
        .await
        .expect(200);
    let (old, new) = (
        webhook["secret"].as_str().unwrap_or_default(),
        rotated["secret"].as_str().unwrap_or_default(),
    );
    assert_ne!(old, new);
    assert_eq!(s.get(&format!("/webhooks/{id}")).await["secret"], new);
    s.shipment().await;
    let delivery = s.receiver.wait_for("/rotated", 1).await.remove(0);
    assert_eq!(delivery.header("webhook-signature").split(' ').count(), 2);
    assert!(delivery.signed_with(new) && delivery.signed_with(old));
    assert!(
        delivery
            .header("user-agent")
            .starts_with("Shipbase-Webhooks/"),
        "{:?}",
        delivery.header("user-agent")
    );
}

#[tokio::test]
async fn secrets_are_encrypted_at_rest() {
    let s = Setup::new(PRIVATE_OK).await;
    let webhook = s.webhook("/x", json!({})).await;
    let secret = webhook["secret"].as_str().unwrap_or_default().to_string();
    let stored = s
        .app
        .db_text("SELECT secret FROM webhooks", &[])
        .expect("row");
    assert!(
        stored.starts_with("v1:") && !stored.contains(&secret[6..]),
        "{stored}"
    );
    assert!(s.app.dir.path().join("data/secret.key").exists());
}
