//! The Shopify receiver: POST /channels/{channelId}/shopify/orders (DESIGN §8). Deliveries carry
//! no Authorization header; they are signed with the channel's webhook secret.

use base64::{Engine, engine::general_purpose::STANDARD};
use ring::hmac;
use serde_json::{Value, json};

use crate::{
    fixtures::{assert_invalid, id_of, order_channel_body, order_shipment_body, with},
    helpers::{Reply, TestApp, TestOrg},
    orders::assert_holds,
};

/// Shopify's orders/create payload for order #1001, exactly as stored.
pub const PAYLOAD: &[u8] = include_bytes!("../fixtures/shopify_order.json");

/// `X-Shopify-Hmac-Sha256`: base64 of the HMAC-SHA256 of the raw body.
pub fn sign(secret: &str, body: &[u8]) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes());
    STANDARD.encode(hmac::sign(&key, body).as_ref())
}

/// The fixture payload, changed by `edit` and serialized again.
pub fn payload_with(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut payload: Value = serde_json::from_slice(PAYLOAD).expect("the fixture is JSON");
    edit(&mut payload);
    serde_json::to_vec(&payload).expect("serialize")
}

fn fresh_webhook_id() -> String {
    ulid::Ulid::new().to_string().to_lowercase()
}

/// An app with an org and a shopify channel, whose secret the create response showed.
struct Shop {
    app: TestApp,
    org: TestOrg,
    channel: Value,
    secret: String,
}

impl Shop {
    async fn new() -> Shop {
        let app = TestApp::spawn().await;
        let org = app.create_org();
        let channel = app
            .create_order_channel(&org, order_channel_body("shopify"))
            .await;
        let secret = channel["webhookSecret"]
            .as_str()
            .expect("the secret in the create response")
            .to_string();
        Shop {
            app,
            org,
            channel,
            secret,
        }
    }

    fn receiver(&self) -> String {
        format!("/channels/{}/shopify/orders", id_of(&self.channel))
    }

    /// Posts `body` to `path` as Shopify does; `hmac` None leaves the signature header out.
    async fn post_to(
        &self,
        path: &str,
        topic: &str,
        webhook_id: &str,
        hmac: Option<&str>,
        body: &[u8],
    ) -> Reply {
        let mut request = self
            .app
            .client
            .post(self.app.url(path))
            .header("content-type", "application/json")
            .header("X-Shopify-Topic", topic)
            .header("X-Shopify-Webhook-Id", webhook_id)
            .header("X-Shopify-Shop-Domain", "my-store.myshopify.com")
            .body(body.to_vec());
        if let Some(hmac) = hmac {
            request = request.header("X-Shopify-Hmac-Sha256", hmac);
        }
        Reply::read(request.send().await.expect("request")).await
    }

    /// A correctly signed delivery to this channel.
    async fn deliver(&self, topic: &str, webhook_id: &str, body: &[u8]) -> Reply {
        let hmac = sign(&self.secret, body);
        self.post_to(&self.receiver(), topic, webhook_id, Some(&hmac), body)
            .await
    }

    /// The org's orders.
    async fn orders(&self) -> Value {
        self.app
            .get(&format!("/orgs/{}/orders", self.org.id), &self.org.token)
            .await
            .expect(200)
    }

    /// The org's only order.
    async fn only_order(&self) -> Value {
        let list = self.orders().await;
        assert_eq!(list["total"], 1, "{list}");
        list["data"][0].clone()
    }

    async fn assert_no_orders(&self) {
        assert_eq!(self.orders().await["total"], 0);
    }
}

#[tokio::test]
async fn a_signed_orders_create_delivery_imports_the_order() {
    let shop = Shop::new().await;
    let reply = shop
        .deliver("orders/create", &fresh_webhook_id(), PAYLOAD)
        .await;
    let body = reply.expect(200);
    assert!(body["message"].is_string(), "{body}");

    let order = shop.only_order().await;
    assert_eq!(order["orderNumber"], "#1001");
    assert_eq!(order["externalId"], "450789469");
    assert_eq!(order["status"], "pending");
    assert_eq!(order["orderChannelId"], shop.channel["id"]);
    assert_eq!(
        order["orderChannel"],
        json!({"id": shop.channel["id"], "name": "Web Shop", "type": "shopify"})
    );
    assert_eq!(order["customerName"], "Bob Norman");
    assert_eq!(order["customerEmail"], "bob.norman@mail.example.com");
    assert_eq!(order["notes"], "Leave at the back door");
    assert_eq!(order["currency"], "USD");
    assert_eq!(order["totalAmount"], 598.94);
    assert_holds(
        &order["orderLines"],
        &json!([
            {"sku": "IPOD2008PINK", "quantity": 1, "unitPrice": 199.0, "weight": 0.2, "weightUnit": "kg",
             "name": "IPod Nano - 8gb - green"},
            {"sku": "IPOD2008RED", "quantity": 2, "unitPrice": 199.0, "weight": 0.1, "weightUnit": "kg",
             "name": "IPod Nano - 8gb - red", "vendor": "Apple"}
        ]),
    );
    assert_holds(
        &order["shippingAddress"],
        &json!({
            "name": "Bob Norman",
            "address1": "Chestnut Street 92",
            "city": "Louisville",
            "postalCode": "K2P0S8",
            "countryCode": "CA",
            "province": "Kentucky",
            "provinceCode": "KY",
            "country": "Canada",
            "phone": "+1 555-625-1199"
        }),
    );
    let by_id = shop.app.get_order(&shop.org, &id_of(&order)).await;
    assert_eq!(by_id, order);
    let by_number = shop
        .app
        .get(
            &format!("/orgs/{}/orders?orderNumber=%231001", shop.org.id),
            &shop.org.token,
        )
        .await
        .expect(200);
    assert_eq!(by_number["total"], 1);
    assert_eq!(by_number["data"][0]["id"], order["id"]);
}

#[tokio::test]
async fn a_delivery_goes_only_to_the_channels_organization() {
    let shop = Shop::new().await;
    let other = shop.app.create_org();
    shop.deliver("orders/create", &fresh_webhook_id(), PAYLOAD)
        .await
        .expect(200);
    shop.only_order().await;
    let theirs = shop
        .app
        .get(&format!("/orgs/{}/orders", other.id), &other.token)
        .await
        .expect(200);
    assert_eq!(theirs["total"], 0);
}

#[tokio::test]
async fn an_orders_updated_delivery_updates_the_same_order() {
    let shop = Shop::new().await;
    shop.deliver("orders/create", &fresh_webhook_id(), PAYLOAD)
        .await
        .expect(200);
    let created = shop.only_order().await;
    let updated_body = payload_with(|p| {
        p["note"] = json!("Hand to the neighbour");
        p["line_items"][1]["quantity"] = json!(3);
    });
    shop.deliver("orders/updated", &fresh_webhook_id(), &updated_body)
        .await
        .expect(200);
    let updated = shop.only_order().await;
    assert_eq!(updated["id"], created["id"]);
    assert_eq!(updated["notes"], "Hand to the neighbour");
    assert_eq!(updated["orderLines"][1]["quantity"], 3.0);
    assert_eq!(updated["orderNumber"], "#1001");
    assert_eq!(updated["createdAt"], created["createdAt"]);
}

#[tokio::test]
async fn a_repeated_webhook_id_is_acknowledged_and_changes_nothing() {
    let shop = Shop::new().await;
    let webhook_id = fresh_webhook_id();
    shop.deliver("orders/create", &webhook_id, PAYLOAD)
        .await
        .expect(200);
    let first = shop.only_order().await;
    let changed = payload_with(|p| p["note"] = json!("Changed on a retry"));
    shop.deliver("orders/updated", &webhook_id, &changed)
        .await
        .expect(200);
    let after = shop.only_order().await;
    assert_eq!(after, first);
    assert_eq!(after["notes"], "Leave at the back door");
}

#[tokio::test]
async fn a_wrong_signature_is_401_and_stores_nothing() {
    let shop = Shop::new().await;
    let wrong = sign("not-the-channel-secret-at-all", PAYLOAD);
    let refused = shop
        .post_to(
            &shop.receiver(),
            "orders/create",
            &fresh_webhook_id(),
            Some(&wrong),
            PAYLOAD,
        )
        .await;
    assert!(
        refused.headers.get("www-authenticate").is_none(),
        "no bearer challenge for a signature"
    );
    let problem = refused.problem(401, "unauthenticated");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap_or_default()
            .starts_with("X-Shopify-Hmac-Sha256 is missing or does not sign this body"),
        "{problem}"
    );
    // A signature over other bytes does not carry over either.
    let other_body = payload_with(|p| p["note"] = json!("tampered"));
    let tampered = sign(&shop.secret, &other_body);
    shop.post_to(
        &shop.receiver(),
        "orders/create",
        &fresh_webhook_id(),
        Some(&tampered),
        PAYLOAD,
    )
    .await
    .problem(401, "unauthenticated");
    shop.assert_no_orders().await;
}

#[tokio::test]
async fn a_missing_signature_is_401() {
    let shop = Shop::new().await;
    shop.post_to(
        &shop.receiver(),
        "orders/create",
        &fresh_webhook_id(),
        None,
        PAYLOAD,
    )
    .await
    .problem(401, "unauthenticated");
    shop.assert_no_orders().await;
}

#[tokio::test]
async fn a_rejected_delivery_does_not_use_up_its_webhook_id() {
    let shop = Shop::new().await;
    let webhook_id = fresh_webhook_id();
    let wrong = sign("not-the-channel-secret-at-all", PAYLOAD);
    shop.post_to(
        &shop.receiver(),
        "orders/create",
        &webhook_id,
        Some(&wrong),
        PAYLOAD,
    )
    .await
    .problem(401, "unauthenticated");
    shop.deliver("orders/create", &webhook_id, PAYLOAD)
        .await
        .expect(200);
    shop.only_order().await;
}

#[tokio::test]
async fn a_manual_or_unknown_channel_is_404() {
    let shop = Shop::new().await;
    let manual = shop
        .app
        .create_order_channel(&shop.org, order_channel_body("manual"))
        .await;
    let hmac = sign(&shop.secret, PAYLOAD);
    for channel_id in [id_of(&manual), "och_01ARZ3NDEKTSV4RRFFQ69G5FAV".into()] {
        shop.post_to(
            &format!("/channels/{channel_id}/shopify/orders"),
            "orders/create",
            &fresh_webhook_id(),
            Some(&hmac),
            PAYLOAD,
        )
        .await
        .problem(404, "not_found");
    }
    shop.assert_no_orders().await;
}

#[tokio::test]
async fn a_payload_with_cancelled_at_marks_the_order_cancelled() {
    let shop = Shop::new().await;
    shop.deliver("orders/create", &fresh_webhook_id(), PAYLOAD)
        .await
        .expect(200);
    assert_eq!(shop.only_order().await["status"], "pending");
    let cancelled = payload_with(|p| p["cancelled_at"] = json!("2026-11-21T09:00:00-05:00"));
    shop.deliver("orders/updated", &fresh_webhook_id(), &cancelled)
        .await
        .expect(200);
    assert_eq!(shop.only_order().await["status"], "cancelled");
}

#[tokio::test]
async fn a_new_order_that_is_already_cancelled_is_stored_cancelled() {
    let shop = Shop::new().await;
    let cancelled = payload_with(|p| p["cancelled_at"] = json!("2026-11-21T09:00:00-05:00"));
    shop.deliver("orders/create", &fresh_webhook_id(), &cancelled)
        .await
        .expect(200);
    assert_eq!(shop.only_order().await["status"], "cancelled");
}

#[tokio::test]
async fn a_signed_body_that_is_not_json_is_400() {
    let shop = Shop::new().await;
    let body = b"{\"id\": 450789469, \"name\": ";
    shop.deliver("orders/create", &fresh_webhook_id(), body)
        .await
        .problem(400, "invalid_json");
    shop.assert_no_orders().await;
}

#[tokio::test]
async fn a_signed_payload_without_an_order_id_is_400_naming_it() {
    let shop = Shop::new().await;
    let body = payload_with(|p| {
        p.as_object_mut().expect("an object").remove("id");
    });
    assert_invalid(
        shop.deliver("orders/create", &fresh_webhook_id(), &body)
            .await,
        "id",
    );
    shop.assert_no_orders().await;
}

#[tokio::test]
async fn an_unknown_topic_is_acknowledged_and_stores_nothing() {
    let shop = Shop::new().await;
    shop.deliver("products/create", &fresh_webhook_id(), PAYLOAD)
        .await
        .expect(200);
    shop.assert_no_orders().await;
}

#[tokio::test]
async fn a_channel_with_a_given_secret_accepts_deliveries_signed_with_it() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let secret = "shpss_0123456789abcdef0123456789abcdef";
    let body = with(
        order_channel_body("shopify"),
        "webhookSecret",
        json!(secret),
    );
    let channel = app.create_order_channel(&org, body).await;
    let shop = Shop {
        app,
        org,
        channel,
        secret: secret.to_string(),
    };
    shop.deliver("orders/create", &fresh_webhook_id(), PAYLOAD)
        .await
        .expect(200);
    assert_eq!(shop.only_order().await["externalId"], "450789469");
}

#[tokio::test]
async fn a_shopify_order_ships_to_its_shipping_address_with_its_weight() {
    let shop = Shop::new().await;
    shop.deliver("orders/create", &fresh_webhook_id(), PAYLOAD)
        .await
        .expect(200);
    let order = shop.only_order().await;
    let (address, carrier) = shop.app.create_address_and_carrier(&shop.org).await;
    let shipment = shop
        .app
        .create_order_shipment(
            &shop.org,
            &id_of(&order),
            order_shipment_body(&id_of(&address), &id_of(&carrier)),
        )
        .await;
    assert_eq!(shipment["reference"], "#1001");
    let receiver = shipment["parties"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["type"] == "receiver")
        .cloned()
        .unwrap_or_default();
    assert_holds(
        &receiver,
        &json!({"name": "Bob Norman", "address1": "Chestnut Street 92", "postalCode": "K2P0S8",
                "city": "Louisville", "countryCode": "CA", "phone": "+1 555-625-1199"}),
    );
    // 1 × 200 g + 2 × 100 g.
    let weight = shipment["parcels"][0]["weight"]
        .as_f64()
        .unwrap_or_default();
    assert!((weight - 0.4).abs() < 1e-9, "{weight}");
    assert_eq!(
        shop.app.get_order(&shop.org, &id_of(&order)).await["status"],
        "processing"
    );
}

/// Whether `needle` appears in any file of the app's data directory (the SQLite file, its
/// write-ahead log, the shared-memory index).
fn in_data_files(app: &TestApp, needle: &str) -> bool {
    let dir = app.dir.path().join("data");
    std::fs::read_dir(&dir)
        .expect("data directory")
        .filter_map(Result::ok)
        .filter_map(|entry| std::fs::read(entry.path()).ok())
        .any(|bytes| {
            bytes
                .windows(needle.len())
                .any(|window| window == needle.as_bytes())
        })
}

#[tokio::test]
async fn the_channel_secret_is_never_stored_in_clear() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let secret = "shopify-secret-in-clear-7f3a9c2e41";
    let channel = app
        .create_order_channel(
            &org,
            with(
                order_channel_body("shopify"),
                "webhookSecret",
                json!(secret),
            ),
        )
        .await;
    assert_eq!(channel["webhookSecret"], secret, "shown once, in clear");
    let stored = app
        .db_text(
            "SELECT webhook_secret_sealed FROM order_channels WHERE id = ?1",
            &[&id_of(&channel)],
        )
        .expect("sealed");
    assert!(
        stored.starts_with("v1:") && !stored.contains(secret),
        "{stored}"
    );
    if !crate::helpers::on_postgres() {
        assert!(
            !in_data_files(&app, secret),
            "the secret is in the database files"
        );
    }
    let shop = Shop {
        app,
        org,
        channel,
        secret: secret.to_string(),
    };
    shop.deliver("orders/create", &fresh_webhook_id(), PAYLOAD)
        .await
        .expect(200);
}

#[tokio::test]
async fn secrets_an_older_version_kept_in_clear_are_sealed_when_the_server_starts() {
    let shop = Shop::new().await;
    let legacy = "legacy-shopify-secret-0d5b8e17c9";
    shop.app.db_execute(
        "UPDATE order_channels SET webhook_secret = ?1, webhook_secret_sealed = NULL WHERE id = ?2",
        &[legacy, &id_of(&shop.channel)],
    );
    let Shop {
        app, org, channel, ..
    } = shop;
    let app = app.restart_with("").await;
    // The restarted server answers once it has sealed what it found.
    app.call(reqwest::Method::GET, "/health", None, None)
        .await
        .expect(200);
    assert_eq!(
        app.db_text(
            "SELECT COALESCE(webhook_secret, 'none') FROM order_channels WHERE id = ?1",
            &[&id_of(&channel)],
        ),
        Some("none".to_string())
    );
    if !crate::helpers::on_postgres() {
        assert!(
            !in_data_files(&app, legacy),
            "the old secret is still in the files"
        );
    }
    let shop = Shop {
        app,
        org,
        channel,
        secret: legacy.to_string(),
    };
    shop.deliver("orders/create", &fresh_webhook_id(), PAYLOAD)
        .await
        .expect(200);
}
