//! Manual orders: /orgs/{orgId}/orders (SPEC §2 Order, §3, rows 19-20, DESIGN §6, §8, §16).
//! Order channels and shipments for orders live in the files of the `orders/` folder.

mod channels;
mod shipments;

use serde_json::{Value, json};

use crate::{
    fixtures::{
        assert_id, assert_invalid, assert_timestamp, id_of, order_body, order_channel_body,
        order_shipment_body, page_ids, rule_body, with, without,
    },
    helpers::{Reply, TestApp, TestOrg},
};

/// An app with an org that has a manual order channel, a sender address and a sandbox carrier.
pub struct Setup {
    pub app: TestApp,
    pub org: TestOrg,
    pub channel: Value,
    pub address: Value,
    pub carrier: Value,
}

impl Setup {
    pub async fn new() -> Setup {
        let app = TestApp::spawn().await;
        let org = app.create_org();
        let channel = app
            .create_order_channel(&org, order_channel_body("manual"))
            .await;
        let (address, carrier) = app.create_address_and_carrier(&org).await;
        Setup {
            app,
            org,
            channel,
            address,
            carrier,
        }
    }

    pub fn orders(&self) -> String {
        format!("/orgs/{}/orders", self.org.id)
    }

    pub fn order_path(&self, id: &str) -> String {
        format!("{}/{id}", self.orders())
    }

    /// A full order body in the manual channel.
    pub fn order_body(&self, number: &str) -> Value {
        order_body(&id_of(&self.channel), number)
    }

    pub async fn post_order(&self, body: Value) -> Reply {
        self.app.post(&self.orders(), &self.org.token, body).await
    }

    /// Creates the order numbered `number` from `order_body`.
    pub async fn create_order(&self, number: &str) -> Value {
        self.app
            .create_order(&self.org, self.order_body(number))
            .await
    }

    pub async fn order(&self, id: &str) -> Value {
        self.app.get_order(&self.org, id).await
    }

    pub async fn list(&self, query: &str) -> Value {
        self.app
            .get(&format!("{}?{query}", self.orders()), &self.org.token)
            .await
            .expect(200)
    }

    /// A valid body for a shipment of an order.
    pub fn shipment_body(&self) -> Value {
        order_shipment_body(&id_of(&self.address), &id_of(&self.carrier))
    }

    pub async fn post_shipment(&self, order_id: &str, body: Value) -> Reply {
        self.app
            .post(
                &format!("{}/shipments", self.order_path(order_id)),
                &self.org.token,
                body,
            )
            .await
    }

    /// Creates a shipment for the order with the default body.
    pub async fn ship(&self, order_id: &str) -> Value {
        self.app
            .create_order_shipment(&self.org, order_id, self.shipment_body())
            .await
    }

    pub async fn cancel(&self, order_id: &str) -> Reply {
        let path = format!("{}/cancel", self.order_path(order_id));
        self.app
            .call(reqwest::Method::POST, &path, Some(&self.org.token), None)
            .await
    }

    /// Asserts that posting `body` as an order is 400 naming `field` and created nothing.
    pub async fn assert_order_rejected(&self, body: Value, field: &str) {
        assert_invalid(self.post_order(body).await, field);
        assert_eq!(self.list("").await["total"], 0);
    }
}

/// Asserts that `actual` holds everything in `expected`: objects key by key (extra keys in
/// `actual` are allowed), arrays item by item, numbers by value (`2` equals `2.0`).
#[track_caller]
pub fn assert_holds(actual: &Value, expected: &Value) {
    fn check(actual: &Value, expected: &Value, at: &str) -> Result<(), String> {
        match (actual, expected) {
            (Value::Object(a), Value::Object(e)) => e.iter().try_for_each(|(key, value)| {
                check(
                    a.get(key).unwrap_or(&Value::Null),
                    value,
                    &format!("{at}.{key}"),
                )
            }),
            (Value::Array(a), Value::Array(e)) if a.len() == e.len() => a
                .iter()
                .zip(e)
                .enumerate()
                .try_for_each(|(i, (a, e))| check(a, e, &format!("{at}[{i}]"))),
            (Value::Number(a), Value::Number(e)) if a.as_f64() == e.as_f64() => Ok(()),
            (a, e) if a == e => Ok(()),
            (a, e) => Err(format!("at {at}: expected {e}, got {a}")),
        }
    }
    if let Err(message) = check(actual, expected, "") {
        panic!("{message}\nactual: {actual}");
    }
}

#[tokio::test]
async fn creating_a_manual_order_returns_201_pending_with_its_channel_and_no_shipments() {
    let s = Setup::new().await;
    let order = s.post_order(s.order_body("1001")).await.expect(201);
    assert_id(&order["id"], "ord");
    assert_eq!(order["orderNumber"], "1001");
    assert_eq!(order["status"], "pending");
    assert_eq!(order["orderChannelId"], s.channel["id"]);
    assert_eq!(
        order["orderChannel"],
        json!({"id": s.channel["id"], "name": "Phone Orders", "type": "manual"})
    );
    assert_eq!(order["shipments"], json!([]));
    assert_eq!(order["orgId"], s.org.id);
    assert_timestamp(&order["createdAt"]);
    assert_timestamp(&order["updatedAt"]);
}

#[tokio::test]
async fn every_writable_order_field_round_trips() {
    let s = Setup::new().await;
    let rule = s
        .app
        .create_rule(&s.org, rule_body(&id_of(&s.carrier), &id_of(&s.address)))
        .await;
    let body = with(s.order_body("1001"), "shippingRuleId", rule["id"].clone());
    let created = s.app.create_order(&s.org, body.clone()).await;
    let expected = without(body, "orderChannelId");
    assert_holds(&created, &expected);
    assert_eq!(created["shippingRule"]["id"], rule["id"]);
    assert_eq!(created["shippingRule"]["name"], "Standard DK");
    let got = s.order(&id_of(&created)).await;
    assert_holds(&got, &expected);
    assert_eq!(got, created);
}

#[tokio::test]
async fn a_minimal_order_needs_only_a_channel_and_a_number() {
    let s = Setup::new().await;
    let body = json!({"orderChannelId": s.channel["id"], "orderNumber": "A-1"});
    let order = s.app.create_order(&s.org, body).await;
    assert_eq!(order["orderLines"], json!([]));
    assert_eq!(order["status"], "pending");
    for key in [
        "externalId",
        "customerName",
        "customerEmail",
        "notes",
        "currency",
        "totalAmount",
        "shippingAddress",
        "shippingRuleId",
    ] {
        assert!(order[key].is_null(), "{key}: {order}");
    }
}

#[tokio::test]
async fn an_order_with_an_unknown_or_foreign_shipping_rule_is_400_naming_it() {
    let s = Setup::new().await;
    let other = s.app.create_org();
    let (address, carrier) = s.app.create_address_and_carrier(&other).await;
    let foreign = s
        .app
        .create_rule(&other, rule_body(&id_of(&carrier), &id_of(&address)))
        .await;
    for rule_id in [
        json!("rul_01ARZ3NDEKTSV4RRFFQ69G5FAV"),
        foreign["id"].clone(),
    ] {
        let body = with(s.order_body("1001"), "shippingRuleId", rule_id);
        s.assert_order_rejected(body, "shippingRuleId").await;
    }
}

#[tokio::test]
async fn an_order_in_a_shopify_channel_is_400_naming_the_channel() {
    let s = Setup::new().await;
    let shopify = s
        .app
        .create_order_channel(&s.org, order_channel_body("shopify"))
        .await;
    let body = with(
        s.order_body("1001"),
        "orderChannelId",
        shopify["id"].clone(),
    );
    s.assert_order_rejected(body, "orderChannelId").await;
}

#[tokio::test]
async fn an_order_in_an_unknown_or_foreign_channel_is_400_naming_the_channel() {
    let s = Setup::new().await;
    let other = s.app.create_org();
    let foreign = s
        .app
        .create_order_channel(&other, order_channel_body("manual"))
        .await;
    for channel_id in [
        json!("och_01ARZ3NDEKTSV4RRFFQ69G5FAV"),
        foreign["id"].clone(),
    ] {
        let body = with(s.order_body("1001"), "orderChannelId", channel_id);
        s.assert_order_rejected(body, "orderChannelId").await;
    }
}

#[tokio::test]
async fn an_order_without_a_channel_or_number_is_400_naming_it() {
    let s = Setup::new().await;
    for field in ["orderChannelId", "orderNumber"] {
        s.assert_order_rejected(without(s.order_body("1001"), field), field)
            .await;
    }
    s.assert_order_rejected(
        with(s.order_body("1001"), "orderNumber", json!("")),
        "orderNumber",
    )
    .await;
}

#[tokio::test]
async fn a_duplicate_order_number_in_a_channel_is_409() {
    let s = Setup::new().await;
    let first = s.create_order("1001").await;
    let again = with(s.order_body("1001"), "externalId", json!("another-ext"));
    s.post_order(again).await.problem(409, "conflict");
    assert_eq!(page_ids(&s.list("").await), [id_of(&first)]);
    // The same number is free in another channel.
    let other = s
        .app
        .create_order_channel(&s.org, order_channel_body("manual"))
        .await;
    let body = with(s.order_body("1001"), "orderChannelId", other["id"].clone());
    s.app.create_order(&s.org, body).await;
}

#[tokio::test]
async fn a_duplicate_external_id_in_a_channel_is_409() {
    let s = Setup::new().await;
    let first = s.create_order("1001").await;
    let again = with(s.order_body("1002"), "externalId", json!("ext-1001"));
    s.post_order(again).await.problem(409, "conflict");
    assert_eq!(page_ids(&s.list("").await), [id_of(&first)]);
}

#[tokio::test]
async fn an_order_line_with_quantity_zero_is_400_naming_it() {
    let s = Setup::new().await;
    let mut body = s.order_body("1001");
    body["orderLines"][1]["quantity"] = json!(0);
    s.assert_order_rejected(body, "orderLines[1].quantity")
        .await;
}

#[tokio::test]
async fn an_order_with_a_bad_customer_email_is_400_naming_it() {
    let s = Setup::new().await;
    let body = with(s.order_body("1001"), "customerEmail", json!("not-an-email"));
    s.assert_order_rejected(body, "customerEmail").await;
}

#[tokio::test]
async fn orders_are_listed_newest_first_in_pages() {
    let s = Setup::new().await;
    let mut ids = Vec::new();
    for n in 1..=5 {
        ids.push(id_of(&s.create_order(&format!("100{n}")).await));
    }
    ids.reverse();
    let mut seen = Vec::new();
    for page in 1..=3 {
        let list = s.list(&format!("limit=2&page={page}")).await;
        assert_eq!(list["total"], 5);
        assert_eq!(list["page"], page);
        assert_eq!(list["limit"], 2);
        assert_eq!(list["totalPages"], 3);
        seen.extend(page_ids(&list));
    }
    assert_eq!(seen, ids, "newest first across pages");
    let first = s.list("").await;
    assert_eq!(first["limit"], 20);
    assert_eq!(first["data"][0], s.order(&ids[0]).await);
}

#[tokio::test]
async fn orders_can_be_filtered_by_status_channel_and_number() {
    let s = Setup::new().await;
    let other = s
        .app
        .create_order_channel(&s.org, order_channel_body("manual"))
        .await;
    let a = s.create_order("1001").await;
    let b = s.create_order("1002").await;
    let c = s
        .app
        .create_order(
            &s.org,
            with(s.order_body("1001"), "orderChannelId", other["id"].clone()),
        )
        .await;
    s.cancel(&id_of(&b)).await.expect(200);

    let cancelled = s.list("status=cancelled").await;
    assert_eq!(page_ids(&cancelled), [id_of(&b)]);
    assert_eq!(cancelled["total"], 1);
    let pending = s.list("status=pending").await;
    assert_eq!(page_ids(&pending), [id_of(&c), id_of(&a)]);
    let in_other = s.list(&format!("orderChannelId={}", id_of(&other))).await;
    assert_eq!(page_ids(&in_other), [id_of(&c)]);
    let numbered = s.list("orderNumber=1001").await;
    assert_eq!(page_ids(&numbered), [id_of(&c), id_of(&a)]);
    let combined = s
        .list(&format!(
            "orderNumber=1001&orderChannelId={}",
            id_of(&s.channel)
        ))
        .await;
    assert_eq!(page_ids(&combined), [id_of(&a)]);
    let paged = s.list("status=pending&limit=1&page=2").await;
    assert_eq!(paged["total"], 2);
    assert_eq!(paged["totalPages"], 2);
    assert_eq!(page_ids(&paged), [id_of(&a)]);
    let none = s.list("orderNumber=9999").await;
    assert_eq!(none["total"], 0);
    assert_eq!(none["data"], json!([]));
}

#[tokio::test]
async fn an_order_status_filter_outside_the_enum_or_a_bad_page_is_400() {
    let s = Setup::new().await;
    for (query, field) in [
        ("status=shipped", "status"),
        ("page=0", "page"),
        ("limit=101", "limit"),
    ] {
        let reply = s
            .app
            .get(&format!("{}?{query}", s.orders()), &s.org.token)
            .await;
        assert_invalid(reply, field);
    }
}

#[tokio::test]
async fn getting_an_unknown_order_is_404() {
    let s = Setup::new().await;
    s.app
        .get(
            &s.order_path("ord_01ARZ3NDEKTSV4RRFFQ69G5FAV"),
            &s.org.token,
        )
        .await
        .problem(404, "not_found");
}

#[tokio::test]
async fn another_orgs_token_cannot_read_delete_or_cancel_an_order() {
    let s = Setup::new().await;
    let other = s.app.create_org();
    let order = s.create_order("1001").await;
    let id = id_of(&order);
    for org_id in [&s.org.id, &other.id] {
        let path = format!("/orgs/{org_id}/orders/{id}");
        s.app
            .get(&path, &other.token)
            .await
            .problem(404, "not_found");
        s.app
            .delete(&path, &other.token)
            .await
            .problem(404, "not_found");
        s.app
            .call(
                reqwest::Method::POST,
                &format!("{path}/cancel"),
                Some(&other.token),
                None,
            )
            .await
            .problem(404, "not_found");
    }
    let theirs = s
        .app
        .get(&format!("/orgs/{}/orders", other.id), &other.token)
        .await
        .expect(200);
    assert_eq!(theirs["total"], 0);
    assert_eq!(s.order(&id).await["status"], "pending");
}

#[tokio::test]
async fn deleting_an_order_without_shipments_answers_a_message_then_it_is_404() {
    let s = Setup::new().await;
    let order = s.create_order("1001").await;
    let path = s.order_path(&id_of(&order));
    let reply = s.app.delete(&path, &s.org.token).await.expect(200);
    assert!(
        reply["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{reply}"
    );
    s.app
        .get(&path, &s.org.token)
        .await
        .problem(404, "not_found");
    s.app
        .delete(&path, &s.org.token)
        .await
        .problem(404, "not_found");
    assert_eq!(s.list("").await["total"], 0);
}

#[tokio::test]
async fn deleting_an_order_with_shipments_is_409() {
    let s = Setup::new().await;
    let order = s.create_order("1001").await;
    let id = id_of(&order);
    let shipment = s.ship(&id).await;
    s.app
        .delete(&s.order_path(&id), &s.org.token)
        .await
        .problem(409, "conflict");
    let kept = s.order(&id).await;
    assert_eq!(kept["shipments"][0]["id"], shipment["id"]);
}

#[tokio::test]
async fn cancelling_an_order_cancels_its_open_shipments_but_not_a_dispatched_one() {
    let s = Setup::new().await;
    let order = s.create_order("1001").await;
    let id = id_of(&order);
    let pending = id_of(&s.ship(&id).await);
    let processing = id_of(&s.ship(&id).await);
    s.app.book_shipment(&s.org, &processing).await;
    let dispatched = id_of(&s.ship(&id).await);
    s.app.book_shipment(&s.org, &dispatched).await;
    s.app
        .set_shipment_status(&s.org, &dispatched, "dispatched")
        .await;

    let cancelled = s.cancel(&id).await.expect(200);
    assert_eq!(cancelled["id"], order["id"]);
    assert_eq!(cancelled["status"], "cancelled");
    for (shipment, status) in [
        (&pending, "cancelled"),
        (&processing, "cancelled"),
        (&dispatched, "dispatched"),
    ] {
        assert_eq!(
            s.app.get_shipment(&s.org, shipment).await["status"],
            status,
            "{shipment}"
        );
        let summary = cancelled["shipments"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|summary| summary["id"] == shipment.as_str())
            .unwrap_or_else(|| panic!("{shipment} not in {cancelled}"));
        assert_eq!(summary["status"], status);
    }
    assert_eq!(s.order(&id).await["status"], "cancelled");
}

#[tokio::test]
async fn cancelling_a_cancelled_order_is_409() {
    let s = Setup::new().await;
    let id = id_of(&s.create_order("1001").await);
    s.cancel(&id).await.expect(200);
    s.cancel(&id).await.problem(409, "invalid_state");
    assert_eq!(s.order(&id).await["status"], "cancelled");
}

#[tokio::test]
async fn cancelling_a_fulfilled_order_is_409() {
    let s = Setup::new().await;
    let id = id_of(&s.create_order("1001").await);
    let shipment = id_of(&s.ship(&id).await);
    s.app.book_shipment(&s.org, &shipment).await;
    s.app
        .set_shipment_status(&s.org, &shipment, "dispatched")
        .await;
    assert_eq!(s.order(&id).await["status"], "fulfilled");
    s.cancel(&id).await.problem(409, "invalid_state");
    assert_eq!(s.order(&id).await["status"], "fulfilled");
}

#[tokio::test]
async fn cancelling_an_unknown_order_is_404() {
    let s = Setup::new().await;
    s.cancel("ord_01ARZ3NDEKTSV4RRFFQ69G5FAV")
        .await
        .problem(404, "not_found");
}
