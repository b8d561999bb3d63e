//! One test per row of the emission table (DESIGN §9): which events an operation emits, in which
//! order, each carrying the full resource after the change — the same JSON the REST answer has.

use serde_json::{Value, json};

use crate::{
    fixtures::{
        id_of, order_body, order_channel_body, order_shipment_body, parcel_body, parcels_of,
        rule_body, shipment_body,
    },
    helpers::{TestApp, TestOrg},
    receiver::Receiver,
};

const ALL_EVENTS: [&str; 9] = [
    "shipment.created",
    "shipment.updated",
    "shipment.dispatched",
    "shipment.cancelled",
    "shipment.error",
    "order.created",
    "order.updated",
    "order.cancelled",
    "tracking.updated",
];

/// An organization with a sender address, a carrier, a manual order channel, and a webhook for
/// every event kind on a loopback receiver.
struct Hooked {
    app: TestApp,
    org: TestOrg,
    receiver: Receiver,
    secret: String,
    address_id: String,
    carrier_id: String,
    channel_id: String,
    seen: usize,
    sentinels: usize,
}

impl Hooked {
    async fn new() -> Hooked {
        let app =
            TestApp::spawn_with("[webhooks]\nallow_private_targets = true\nretry_scale = 0.001")
                .await;
        let org = app.create_org();
        let receiver = Receiver::start().await;
        let webhook = app
            .post(
                &format!("/orgs/{}/webhooks", org.id),
                &org.token,
                json!({"name": "all", "url": receiver.url("/all"), "events": ALL_EVENTS}),
            )
            .await
            .expect(201);
        let (address, carrier) = app.create_address_and_carrier(&org).await;
        let channel = app
            .create_order_channel(&org, order_channel_body("manual"))
            .await;
        let mut hooked = Hooked {
            secret: webhook["secret"].as_str().expect("secret").to_string(),
            address_id: id_of(&address),
            carrier_id: id_of(&carrier),
            channel_id: id_of(&channel),
            app,
            org,
            receiver,
            seen: 0,
            sentinels: 0,
        };
        hooked.events().await;
        hooked
    }

    fn path(&self, rest: &str) -> String {
        format!("/orgs/{}{rest}", self.org.id)
    }

    /// The events delivered since the last call, as `(type, data)`: a sentinel order is created
    /// and awaited, and since a webhook's deliveries go out in event order, everything emitted
    /// before it has arrived too. Every delivery must be signed with the webhook's secret.
    async fn events(&mut self) -> Vec<(String, Value)> {
        self.sentinels += 1;
        let number = format!("SENTINEL-{}", self.sentinels);
        let sentinel = self
            .app
            .create_order(&self.org, order_body(&self.channel_id, &number))
            .await;
        let sentinel_id = id_of(&sentinel);
        loop {
            let got = self.receiver.wait_for("/all", self.seen + 1).await;
            let done = got[self.seen..]
                .iter()
                .any(|d| d.json()["data"]["id"] == sentinel_id);
            if !done {
                self.receiver.wait_for("/all", got.len() + 1).await;
                continue;
            }
            let fresh: Vec<_> = got[self.seen..].to_vec();
            self.seen = got.len();
            let mut events = Vec::new();
            for delivery in fresh {
                assert!(delivery.signed_with(&self.secret), "unsigned delivery");
                let payload = delivery.json();
                assert_eq!(payload["orgId"], self.org.id);
                assert!(
                    payload["id"]
                        .as_str()
                        .is_some_and(|id| id.starts_with("evt_"))
                );
                if payload["data"]["id"] == sentinel_id {
                    assert_eq!(payload["type"], "order.created");
                    break;
                }
                events.push((
                    payload["type"].as_str().unwrap_or_default().to_string(),
                    payload["data"].clone(),
                ));
            }
            return events;
        }
    }

    async fn create_shipment(&self, body: Value) -> Value {
        self.app.create_shipment(&self.org, body).await
    }

    fn body(&self) -> Value {
        shipment_body(&self.address_id, &self.carrier_id)
    }

    async fn post(&self, rest: &str, body: Value, status: u16) -> Value {
        self.app
            .post(&self.path(rest), &self.org.token, body)
            .await
            .expect(status)
    }
}

fn types(events: &[(String, Value)]) -> Vec<&str> {
    events.iter().map(|(t, _)| t.as_str()).collect()
}

#[tokio::test]
async fn creating_a_shipment_emits_shipment_created_with_the_shipment() {
    let mut h = Hooked::new().await;
    let shipment = h.create_shipment(h.body()).await;
    let events = h.events().await;
    assert_eq!(types(&events), ["shipment.created"]);
    assert_eq!(events[0].1, shipment);
}

#[tokio::test]
async fn a_status_change_emits_updated_then_the_event_of_the_new_status() {
    let mut h = Hooked::new().await;
    let shipment = h.create_shipment(h.body()).await;
    let id = id_of(&shipment);
    h.events().await;
    for (target, expected) in [
        ("on_hold", vec!["shipment.updated"]),
        ("pending", vec!["shipment.updated"]),
        ("error", vec!["shipment.updated", "shipment.error"]),
        ("cancelled", vec!["shipment.updated", "shipment.cancelled"]),
    ] {
        let after = h
            .post(
                &format!("/shipments/{id}/status"),
                json!({"status": target}),
                200,
            )
            .await;
        let events = h.events().await;
        assert_eq!(types(&events), expected, "into {target}");
        assert!(
            events.iter().all(|(_, data)| *data == after),
            "into {target}"
        );
    }
    let mut body = h.body();
    body["status"] = json!("processing");
    let processing = h.create_shipment(body).await;
    h.events().await;
    let dispatched = h
        .post(
            &format!("/shipments/{}/status", id_of(&processing)),
            json!({"status": "dispatched"}),
            200,
        )
        .await;
    let events = h.events().await;
    assert_eq!(types(&events), ["shipment.updated", "shipment.dispatched"]);
    assert_eq!(events[1].1, dispatched);
}

#[tokio::test]
async fn booking_emits_updated_then_tracking_updated_with_the_label() {
    let mut h = Hooked::new().await;
    let shipment = h.create_shipment(h.body()).await;
    h.events().await;
    let booked = h
        .post(
            &format!("/shipments/{}/book", id_of(&shipment)),
            json!({}),
            200,
        )
        .await;
    let events = h.events().await;
    assert_eq!(types(&events), ["shipment.updated", "tracking.updated"]);
    for (_, data) in &events {
        assert_eq!(*data, booked);
        assert_eq!(data["documents"].as_array().map(Vec::len), Some(1));
        assert_eq!(data["status"], "processing");
    }
}

#[tokio::test]
async fn a_tracking_event_emits_tracking_updated_only() {
    let mut h = Hooked::new().await;
    let shipment = h.create_shipment(h.body()).await;
    h.events().await;
    let after = h
        .post(
            &format!("/shipments/{}/tracking-events", id_of(&shipment)),
            json!({"status": "in_transit", "description": "Left the hub"}),
            200,
        )
        .await;
    let events = h.events().await;
    assert_eq!(types(&events), ["tracking.updated"]);
    assert_eq!(events[0].1, after);
}

#[tokio::test]
async fn applying_a_rule_emits_shipment_updated() {
    let mut h = Hooked::new().await;
    let rule = h
        .app
        .create_rule(&h.org, rule_body(&h.carrier_id, &h.address_id))
        .await;
    let shipment = h.create_shipment(h.body()).await;
    h.events().await;
    let after = h
        .post(
            &format!("/shipments/{}/apply-shipping-rule", id_of(&shipment)),
            json!({"shippingRuleId": id_of(&rule)}),
            200,
        )
        .await;
    let events = h.events().await;
    assert_eq!(types(&events), ["shipment.updated"]);
    assert_eq!(events[0].1, after);
    assert_eq!(events[0].1["shippingRule"]["id"], id_of(&rule));
}

#[tokio::test]
async fn a_split_emits_created_for_the_new_shipment_then_updated_for_the_original() {
    let mut h = Hooked::new().await;
    let mut body = h.body();
    body["parcels"] = json!([parcel_body(4.0, &[("A", 2), ("B", 2)])]);
    let shipment = h.create_shipment(body).await;
    let parcel = parcels_of(&shipment)[0].clone();
    let line = id_of(&parcel["orderLines"][0]);
    h.events().await;
    let split = h
        .post(
            &format!(
                "/shipments/{}/parcels/{}/split",
                id_of(&shipment),
                id_of(&parcel)
            ),
            json!({"orderLineIds": [line]}),
            201,
        )
        .await;
    let events = h.events().await;
    assert_eq!(types(&events), ["shipment.created", "shipment.updated"]);
    assert_eq!(events[0].1, split["newShipment"]);
    assert_eq!(events[1].1, split["originalShipment"]);
}

#[tokio::test]
async fn a_batch_split_emits_created_for_each_new_shipment_then_updated() {
    let mut h = Hooked::new().await;
    let mut body = h.body();
    body["parcels"] = json!([parcel_body(6.0, &[("A", 5), ("B", 1)])]);
    let shipment = h.create_shipment(body).await;
    let parcel = parcels_of(&shipment)[0].clone();
    let line = id_of(&parcel["orderLines"][0]);
    h.events().await;
    let split = h
        .post(
            &format!(
                "/shipments/{}/parcels/{}/batch-split",
                id_of(&shipment),
                id_of(&parcel)
            ),
            json!({"shipments": [
                {"orderLines": [{"id": line, "quantity": 2}]},
                {"orderLines": [{"id": line, "quantity": 3}]},
            ]}),
            201,
        )
        .await;
    let events = h.events().await;
    assert_eq!(
        types(&events),
        ["shipment.created", "shipment.created", "shipment.updated"]
    );
    assert_eq!(events[0].1, split["newShipments"][0]);
    assert_eq!(events[1].1, split["newShipments"][1]);
    assert_eq!(events[2].1, split["originalShipment"]);
}

#[tokio::test]
async fn a_return_emits_created_then_tracking_updated_for_the_booked_return() {
    let mut h = Hooked::new().await;
    let mut body = h.body();
    body["status"] = json!("processing");
    let shipment = h.create_shipment(body).await;
    h.post(
        &format!("/shipments/{}/status", id_of(&shipment)),
        json!({"status": "dispatched"}),
        200,
    )
    .await;
    h.events().await;
    let ret = h
        .post(
            &format!("/shipments/{}/create-return", id_of(&shipment)),
            json!({}),
            201,
        )
        .await;
    let events = h.events().await;
    assert_eq!(types(&events), ["shipment.created", "tracking.updated"]);
    assert!(events.iter().all(|(_, data)| *data == ret));
    assert_eq!(ret["status"], "processing");
}

#[tokio::test]
async fn creating_an_order_emits_order_created_with_the_order() {
    let mut h = Hooked::new().await;
    let order = h
        .app
        .create_order(&h.org, order_body(&h.channel_id, "ORD-1"))
        .await;
    let events = h.events().await;
    assert_eq!(types(&events), ["order.created"]);
    assert_eq!(events[0].1, order);
}

#[tokio::test]
async fn a_shipment_for_an_order_emits_shipment_created_then_order_updated() {
    let mut h = Hooked::new().await;
    let order = h
        .app
        .create_order(&h.org, order_body(&h.channel_id, "ORD-1"))
        .await;
    h.events().await;
    let shipment = h
        .app
        .create_order_shipment(
            &h.org,
            &id_of(&order),
            order_shipment_body(&h.address_id, &h.carrier_id),
        )
        .await;
    let events = h.events().await;
    assert_eq!(types(&events), ["shipment.created", "order.updated"]);
    assert_eq!(events[0].1, shipment);
    assert_eq!(events[1].1["status"], "processing");
    assert_eq!(events[1].1, h.app.get_order(&h.org, &id_of(&order)).await);

    // Dispatching its only shipment fulfils the order.
    let id = id_of(&shipment);
    h.post(
        &format!("/shipments/{id}/status"),
        json!({"status": "processing"}),
        200,
    )
    .await;
    h.events().await;
    h.post(
        &format!("/shipments/{id}/status"),
        json!({"status": "dispatched"}),
        200,
    )
    .await;
    let events = h.events().await;
    assert_eq!(
        types(&events),
        ["shipment.updated", "shipment.dispatched", "order.updated"]
    );
    assert_eq!(events[2].1["status"], "fulfilled");
}

#[tokio::test]
async fn cancelling_an_order_cancels_its_shipments_then_emits_updated_and_cancelled() {
    let mut h = Hooked::new().await;
    let order = h
        .app
        .create_order(&h.org, order_body(&h.channel_id, "ORD-1"))
        .await;
    let shipment = h
        .app
        .create_order_shipment(
            &h.org,
            &id_of(&order),
            order_shipment_body(&h.address_id, &h.carrier_id),
        )
        .await;
    h.events().await;
    let cancelled = h
        .post(&format!("/orders/{}/cancel", id_of(&order)), json!({}), 200)
        .await;
    let events = h.events().await;
    assert_eq!(
        types(&events),
        [
            "shipment.updated",
            "shipment.cancelled",
            "order.updated",
            "order.cancelled"
        ]
    );
    assert_eq!(events[0].1["id"], id_of(&shipment));
    assert_eq!(events[0].1["status"], "cancelled");
    assert_eq!(events[2].1, cancelled);
    assert_eq!(events[3].1, cancelled);
    assert_eq!(cancelled["shipments"][0]["status"], "cancelled");
}

#[tokio::test]
async fn deleting_an_orders_only_shipment_emits_order_updated_back_to_pending() {
    let mut h = Hooked::new().await;
    let order = h
        .app
        .create_order(&h.org, order_body(&h.channel_id, "ORD-1"))
        .await;
    let shipment = h
        .app
        .create_order_shipment(
            &h.org,
            &id_of(&order),
            order_shipment_body(&h.address_id, &h.carrier_id),
        )
        .await;
    h.events().await;
    h.app
        .delete(
            &h.path(&format!("/shipments/{}", id_of(&shipment))),
            &h.org.token,
        )
        .await
        .expect(200);
    let events = h.events().await;
    assert_eq!(types(&events), ["order.updated"]);
    assert_eq!(events[0].1["status"], "pending");
    assert_eq!(events[0].1["shipments"], json!([]));
}

#[tokio::test]
async fn shopify_imports_emit_order_created_then_updated_then_cancelled() {
    use crate::shopify::{PAYLOAD, payload_with, sign};
    let mut h = Hooked::new().await;
    let channel = h
        .app
        .create_order_channel(&h.org, order_channel_body("shopify"))
        .await;
    let secret = channel["webhookSecret"]
        .as_str()
        .expect("secret")
        .to_string();
    let receiver = format!("/channels/{}/shopify/orders", id_of(&channel));
    let (client, url) = (h.app.client.clone(), h.app.url(&receiver));
    let deliver = move |topic: &'static str, body: Vec<u8>| {
        let request = client
            .post(url.clone())
            .header("content-type", "application/json")
            .header("X-Shopify-Topic", topic)
            .header("X-Shopify-Hmac-Sha256", sign(&secret, &body))
            .body(body);
        async move {
            let status = request.send().await.expect("delivery").status();
            assert_eq!(status, 200);
        }
    };
    h.events().await;
    deliver("orders/create", PAYLOAD.to_vec()).await;
    let events = h.events().await;
    assert_eq!(types(&events), ["order.created"]);
    let order_id = events[0].1["id"].as_str().unwrap_or_default().to_string();
    assert_eq!(events[0].1, h.app.get_order(&h.org, &order_id).await);

    deliver(
        "orders/updated",
        payload_with(|p| p["note"] = json!("Ring twice")),
    )
    .await;
    let events = h.events().await;
    assert_eq!(types(&events), ["order.updated"]);
    assert_eq!(events[0].1["notes"], "Ring twice");

    deliver(
        "orders/cancelled",
        payload_with(|p| p["cancelled_at"] = json!("2026-11-23T10:00:00Z")),
    )
    .await;
    let events = h.events().await;
    assert_eq!(types(&events), ["order.updated", "order.cancelled"]);
    assert_eq!(events[1].1["status"], "cancelled");
}
