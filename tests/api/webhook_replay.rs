//! Replaying a delivery from the log (`POST …/webhooks/{id}/deliveries/{deliveryId}/replay`):
//! the event goes out again with the same id and a valid signature through the delivery queue;
//! a replay while the event is still pending for the webhook queues nothing more; another
//! organization's delivery is 404, an inactive webhook or a pruned event 409, a member 403.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{
    fixtures::{id_of, order_body, order_channel_body},
    helpers::{TestApp, TestOrg, assert_timestamp},
    receiver::Receiver,
    roles::{add_person, connect_as},
};

struct Hooked {
    app: TestApp,
    org: TestOrg,
    receiver: Receiver,
}

impl Hooked {
    async fn new(retry_scale: f64) -> Hooked {
        let app = TestApp::spawn_with(&format!(
            "[webhooks]\nallow_private_targets = true\nretry_scale = {retry_scale}"
        ))
        .await;
        let org = app.create_org();
        Hooked {
            app,
            org,
            receiver: Receiver::start().await,
        }
    }

    fn path(&self, rest: &str) -> String {
        format!("/orgs/{}{rest}", self.org.id)
    }

    /// A webhook for order.created at `path` of the receiver.
    async fn webhook(&self, path: &str) -> Value {
        self.app
            .post(
                &self.path("/webhooks"),
                &self.org.token,
                json!({"name": "ERP", "url": self.receiver.url(path), "events": ["order.created"]}),
            )
            .await
            .expect(201)
    }

    /// An order, which emits order.created.
    async fn order(&self) {
        let channel = self
            .app
            .create_order_channel(&self.org, order_channel_body("manual"))
            .await;
        let number = format!("R-{}", ulid::Ulid::new());
        self.app
            .create_order(&self.org, order_body(&id_of(&channel), &number))
            .await;
    }

    /// The delivery log once it holds `n` attempts, newest first.
    async fn log(&self, webhook: &Value, n: usize) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let log = self
                .app
                .get(
                    &self.path(&format!("/webhooks/{}/deliveries", id_of(webhook))),
                    &self.org.token,
                )
                .await
                .expect(200);
            let data = log["data"].as_array().cloned().unwrap_or_default();
            if data.len() >= n {
                return data;
            }
            assert!(Instant::now() < deadline, "log: {log}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn replay_path(&self, webhook: &Value, delivery: &Value) -> String {
        self.path(&format!(
            "/webhooks/{}/deliveries/{}/replay",
            id_of(webhook),
            id_of(delivery)
        ))
    }
}

#[tokio::test]
async fn a_failed_delivery_is_replayed_with_the_same_event_id_once_the_receiver_recovers() {
    // Every retry within about a second.
    let h = Hooked::new(0.00001).await;
    h.receiver.answer("/erp", &[500; 8]);
    let webhook = h.webhook("/erp").await;
    h.order().await;
    let failed = h.receiver.wait_for("/erp", 8).await;
    assert!(failed.iter().all(|d| d.answered == 500));
    // After the eighth attempt the delivery has failed for good: nothing more comes.
    let log = h.log(&webhook, 8).await;
    let last = &log[0];
    assert_eq!(
        (&last["attempt"], &last["success"], &last["responseStatus"]),
        (&json!(8), &json!(false), &json!(500))
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(h.receiver.to("/erp").len(), 8);

    let queued = h
        .app
        .post(&h.replay_path(&webhook, last), &h.org.token, json!({}))
        .await
        .expect(202);
    assert_eq!(
        (
            &queued["eventId"],
            &queued["eventType"],
            &queued["webhookId"],
            &queued["deliveryId"],
            &queued["state"]
        ),
        (
            &last["eventId"],
            &json!("order.created"),
            &webhook["id"],
            &last["id"],
            &json!("pending")
        )
    );
    assert_timestamp(&queued["nextAttemptAt"]);

    let again = h.receiver.wait_for("/erp", 9).await.remove(8);
    assert_eq!(again.answered, 200);
    assert_eq!(again.header("webhook-id"), failed[0].header("webhook-id"));
    assert_eq!(again.json()["id"], last["eventId"]);
    assert_eq!(again.json()["data"], failed[0].json()["data"]);
    assert!(again.signed_with(webhook["secret"].as_str().unwrap()));

    // The replay is logged as a new delivery's first attempt.
    let log = h.log(&webhook, 9).await;
    assert_eq!(
        (&log[0]["eventId"], &log[0]["attempt"], &log[0]["success"]),
        (&last["eventId"], &json!(1), &json!(true))
    );
    let audit = h.app.get(&h.path("/audit"), &h.org.token).await.expect(200);
    assert_eq!(
        (
            &audit["data"][0]["operation"],
            &audit["data"][0]["resourceId"]
        ),
        (&json!("replay_webhook_delivery"), &webhook["id"])
    );
}

#[tokio::test]
async fn a_replay_while_the_event_is_pending_queues_nothing_more() {
    // The retry after the first failure comes 1.5 s later.
    let h = Hooked::new(0.3).await;
    h.receiver.answer("/erp", &[500]);
    let webhook = h.webhook("/erp").await;
    h.order().await;
    h.receiver.wait_for("/erp", 1).await;
    let failed = h.log(&webhook, 1).await.remove(0);
    let path = h.replay_path(&webhook, &failed);
    let first = h.app.post(&path, &h.org.token, json!({})).await.expect(202);
    let second = h.app.post(&path, &h.org.token, json!({})).await.expect(202);
    assert_eq!(first, second);
    assert_eq!(first["state"], "pending");
    assert!(
        first["nextAttemptAt"].as_str() > failed["createdAt"].as_str(),
        "the pending retry's time: {first}"
    );
    let got = h.receiver.wait_for("/erp", 2).await;
    assert_eq!(got[1].answered, 200);
    tokio::time::sleep(Duration::from_millis(2000)).await;
    assert_eq!(h.receiver.to("/erp").len(), 2, "sent once more, not twice");
    let log = h.log(&webhook, 2).await;
    assert_eq!(log.len(), 2, "{log:?}");
    assert_eq!(
        (&log[0]["attempt"], &log[0]["success"]),
        (&json!(2), &json!(true))
    );
}

#[tokio::test]
async fn replays_are_refused_for_other_organizations_unknown_deliveries_and_lost_events() {
    let h = Hooked::new(0.00001).await;
    h.receiver.answer("/erp", &[500; 8]);
    let webhook = h.webhook("/erp").await;
    h.order().await;
    let failed = h.log(&webhook, 8).await.remove(0);
    let path = h.replay_path(&webhook, &failed);

    // Another organization: with its own token on this path, and on its own path.
    let other = h.app.create_org();
    h.app
        .post(&path, &other.token, json!({}))
        .await
        .problem(404, "not_found");
    h.app
        .post(&path.replace(&h.org.id, &other.id), &other.token, json!({}))
        .await
        .problem(404, "not_found");
    // An unknown delivery, and this delivery under another webhook of the organization.
    let unknown = path.replace(&id_of(&failed), "att_01ARZ3NDEKTSV4RRFFQ69G5FAV");
    h.app
        .post(&unknown, &h.org.token, json!({}))
        .await
        .problem(404, "not_found");
    let sibling = h.webhook("/other").await;
    h.app
        .post(
            &path.replace(&id_of(&webhook), &id_of(&sibling)),
            &h.org.token,
            json!({}),
        )
        .await
        .problem(404, "not_found");

    // Roles and scopes: a member has no webhooks; reading them is not enough.
    let (email, _, password) = add_person(&h.app, &h.org, "member");
    let member = connect_as(&h.app, &email, &password, &h.org.id, None, None).await;
    h.app
        .post(&path, member.access(), json!({}))
        .await
        .problem(403, "insufficient_scope");
    let reader = h.app.create_token(&h.org, "read:webhooks");
    h.app
        .post(&path, &reader, json!({}))
        .await
        .problem(403, "insufficient_scope");

    // A test delivery has no event to send again.
    let tested = h
        .app
        .post(
            &h.path(&format!("/webhooks/{}/test", id_of(&webhook))),
            &h.org.token,
            json!({}),
        )
        .await
        .expect(200);
    h.app
        .post(&h.replay_path(&webhook, &tested), &h.org.token, json!({}))
        .await
        .problem(409, "invalid_state");

    // An inactive webhook gets nothing.
    let hook = h.path(&format!("/webhooks/{}", id_of(&webhook)));
    h.app
        .patch(&hook, &h.org.token, json!({"isActive": false}))
        .await
        .expect(200);
    let inactive = h
        .app
        .post(&path, &h.org.token, json!({}))
        .await
        .problem(409, "invalid_state");
    assert!(
        inactive["detail"].as_str().unwrap().contains("inactive"),
        "{inactive}"
    );
    h.app
        .patch(&hook, &h.org.token, json!({"isActive": true}))
        .await
        .expect(200);

    // An event pruned from the outbox cannot be sent again.
    let event_id = failed["eventId"].as_str().unwrap();
    assert_eq!(
        h.app
            .db_execute("DELETE FROM events WHERE id = ?1", &[event_id]),
        1
    );
    let pruned = h
        .app
        .post(&path, &h.org.token, json!({}))
        .await
        .problem(409, "invalid_state");
    assert!(
        pruned["detail"].as_str().unwrap().contains(event_id),
        "{pruned}"
    );
    // The eight failed attempts and the test send; no replay sent anything.
    assert_eq!(h.receiver.to("/erp").len(), 9);
}
