//! Shipments: /orgs/{orgId}/shipments (SPEC §2 Shipment, rows 11-13, DESIGN §6, §7, §16).

use std::time::Duration;

use serde_json::{Value, json};

use crate::{
    fixtures::{
        assert_id, assert_invalid, assert_list_total, assert_timestamp, id_of, page_ids,
        receiver_party, sender_address_body, shipment_body, with,
    },
    helpers::{TestApp, TestOrg},
};

const STATUSES: [&str; 8] = [
    "draft",
    "pending",
    "processing",
    "dispatched",
    "partly_dispatched",
    "error",
    "cancelled",
    "on_hold",
];

/// An app with an org that has a sender address and a sandbox carrier.
struct Setup {
    app: TestApp,
    org: TestOrg,
    address: Value,
    carrier: Value,
}

impl Setup {
    async fn new() -> Setup {
        let app = TestApp::spawn().await;
        let org = app.create_org();
        let (address, carrier) = app.create_address_and_carrier(&org).await;
        Setup {
            app,
            org,
            address,
            carrier,
        }
    }

    fn path(&self) -> String {
        format!("/orgs/{}/shipments", self.org.id)
    }

    /// A valid shipment body for this org.
    fn body(&self) -> Value {
        shipment_body(&id_of(&self.address), &id_of(&self.carrier))
    }

    async fn create(&self, body: Value) -> Value {
        self.app.create_shipment(&self.org, body).await
    }

    async fn post(&self, body: Value) -> crate::helpers::Reply {
        self.app.post(&self.path(), &self.org.token, body).await
    }

    async fn list(&self, query: &str) -> Value {
        self.app
            .get(&format!("{}?{query}", self.path()), &self.org.token)
            .await
            .expect(200)
    }

    /// Asserts that posting `body` is 400 naming `field` and created nothing.
    async fn assert_rejected(&self, body: Value, field: &str) {
        assert_invalid(self.post(body).await, field);
        assert_list_total(&self.app, &self.path(), &self.org.token, 0).await;
    }
}

/// `body` with the key after the last `/` of `pointer` set in the object the rest points at.
fn set(mut body: Value, pointer: &str, value: Value) -> Value {
    let (parent, key) = pointer.rsplit_once('/').expect("a JSON pointer");
    body.pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .unwrap_or_else(|| panic!("no object at {parent}"))
        .insert(key.to_string(), value);
    body
}

/// `body` without the key `key` of the object at JSON pointer `pointer`.
fn remove(mut body: Value, pointer: &str, key: &str) -> Value {
    body.pointer_mut(pointer)
        .and_then(Value::as_object_mut)
        .unwrap_or_else(|| panic!("no object at {pointer}"))
        .remove(key);
    body
}

fn party_of<'a>(shipment: &'a Value, kind: &str) -> Vec<&'a Value> {
    shipment["parties"]
        .as_array()
        .unwrap_or_else(|| panic!("no parties in {shipment}"))
        .iter()
        .filter(|p| p["type"] == kind)
        .collect()
}

#[tokio::test]
async fn creating_a_shipment_applies_the_defaults() {
    let s = Setup::new().await;
    let body = s.post(s.body()).await.expect(201);
    assert_id(&body["id"], "shp");
    assert_eq!(body["status"], "pending");
    assert_eq!(body["termOfTrade"], "DAP");
    assert_eq!(body["orgId"], s.org.id);
    assert_eq!(body["reference"], "REF-1001");
    assert_eq!(body["type"], "outbound");
    assert_eq!(body["senderAddressId"], s.address["id"]);
    assert_eq!(body["carrierSettings"]["carrierId"], s.carrier["id"]);
    assert_eq!(body["carrierSettings"]["productId"], "standard");
    assert_eq!(body["carrierSettings"]["services"], json!(["signature"]));
    assert_timestamp(&body["createdAt"]);
    assert_timestamp(&body["updatedAt"]);
    let parcels = body["parcels"].as_array().cloned().unwrap_or_default();
    assert_eq!(parcels.len(), 1, "{body}");
    assert_id(&parcels[0]["id"], "prc");
    assert_eq!(parcels[0]["weight"], 1.5);
    assert_eq!(parcels[0]["weightUnit"], "kg");
    let line = &parcels[0]["orderLines"][0];
    assert_id(&line["id"], "oln");
    assert_eq!(line["sku"], "SKU-1");
    assert_eq!(line["quantity"], 2);
    let receivers = party_of(&body, "receiver");
    assert_eq!(receivers.len(), 1, "{body}");
    assert_eq!(receivers[0]["name"], "Jane Receiver");
}

#[tokio::test]
async fn a_shipment_keeps_the_given_term_of_trade_and_weight_unit() {
    let s = Setup::new().await;
    let body = with(s.body(), "termOfTrade", json!("DDP"));
    let body = set(body, "/parcels/0/weightUnit", json!("g"));
    let shipment = s.create(body).await;
    assert_eq!(shipment["termOfTrade"], "DDP");
    assert_eq!(shipment["parcels"][0]["weightUnit"], "g");
}

#[tokio::test]
async fn a_shipment_may_be_created_in_any_of_the_eight_statuses() {
    let s = Setup::new().await;
    for status in STATUSES {
        let shipment = s.create(with(s.body(), "status", json!(status))).await;
        assert_eq!(shipment["status"], status);
    }
    assert_list_total(&s.app, &s.path(), &s.org.token, 8).await;
}

#[tokio::test]
async fn a_missing_sender_party_is_filled_from_the_sender_address() {
    let s = Setup::new().await;
    let shipment = s.create(s.body()).await;
    let senders = party_of(&shipment, "sender");
    assert_eq!(senders.len(), 1, "{shipment}");
    let sender = senders[0];
    let a = &s.address;
    assert_eq!(sender["name"], a["name"]);
    assert_eq!(sender["attention"], a["attContact"]);
    assert_eq!(sender["address1"], a["address1"]);
    assert_eq!(sender["address2"], a["address2"]);
    assert_eq!(sender["postalCode"], a["zipcode"]);
    assert_eq!(sender["city"], a["city"]);
    assert_eq!(sender["countryCode"], a["countryCode"]);
    assert_eq!(sender["phone"], a["phone"]);
    assert_eq!(sender["email"], a["email"]);
    // The values really come from the address, not from the receiver.
    assert_eq!(sender["name"], "Main Warehouse");
    assert_eq!(sender["address2"], "Building B");
    assert_eq!(shipment["parties"].as_array().map(Vec::len), Some(2));
}

/// The process keeps the sender address a create was built from; a change to it reaches the
/// next create, and the shipments made before keep the party they were made with.
#[tokio::test]
async fn a_shipment_takes_its_sender_address_as_it_is_at_its_creation() {
    let s = Setup::new().await;
    let first = s.create(s.body()).await;
    assert_eq!(party_of(&first, "sender")[0]["name"], "Main Warehouse");
    let address_path = format!("/orgs/{}/sender-addresses/{}", s.org.id, id_of(&s.address));
    let moved = with(sender_address_body(), "name", json!("Harbour Warehouse"));
    let moved = with(moved, "city", json!("Aarhus"));
    s.app
        .put(&address_path, &s.org.token, moved)
        .await
        .expect(200);
    for _ in 0..2 {
        let shipment = s.create(s.body()).await;
        let sender = party_of(&shipment, "sender")[0].clone();
        assert_eq!(sender["name"], "Harbour Warehouse", "{shipment}");
        assert_eq!(sender["city"], "Aarhus", "{shipment}");
        let path = format!("{}/{}", s.path(), id_of(&shipment));
        assert_eq!(s.app.get(&path, &s.org.token).await.expect(200), shipment);
    }
    let path = format!("{}/{}", s.path(), id_of(&first));
    let kept = s.app.get(&path, &s.org.token).await.expect(200);
    assert_eq!(party_of(&kept, "sender")[0]["name"], "Main Warehouse");
    assert_eq!(party_of(&kept, "sender")[0]["city"], "Glostrup");
}

#[tokio::test]
async fn a_given_sender_party_is_kept() {
    let s = Setup::new().await;
    let given = json!({
        "type": "sender",
        "name": "Drop Shipper",
        "address1": "Other Road 9",
        "postalCode": "1000",
        "city": "Copenhagen",
        "countryCode": "DK",
        "email": "drop@example.com"
    });
    let body = with(s.body(), "parties", json!([receiver_party(), given]));
    let shipment = s.create(body).await;
    let senders = party_of(&shipment, "sender");
    assert_eq!(senders.len(), 1, "{shipment}");
    for key in [
        "name",
        "address1",
        "postalCode",
        "city",
        "countryCode",
        "email",
    ] {
        assert_eq!(senders[0][key], given[key], "{key}");
    }
    assert_eq!(shipment["parties"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn a_shipment_without_a_receiver_is_400() {
    let s = Setup::new().await;
    let pickup = set(receiver_party(), "/type", json!("pickup"));
    s.assert_rejected(with(s.body(), "parties", json!([pickup])), "parties")
        .await;
}

#[tokio::test]
async fn a_shipment_with_two_receivers_is_400() {
    let s = Setup::new().await;
    let parties = json!([receiver_party(), receiver_party()]);
    s.assert_rejected(with(s.body(), "parties", parties), "parties")
        .await;
}

#[tokio::test]
async fn a_party_type_outside_the_enum_is_400() {
    let s = Setup::new().await;
    let courier = set(receiver_party(), "/type", json!("courier"));
    let parties = json!([receiver_party(), courier]);
    s.assert_rejected(with(s.body(), "parties", parties), "parties[1].type")
        .await;
}

#[tokio::test]
async fn a_party_without_a_required_field_is_400_naming_it() {
    let s = Setup::new().await;
    for field in [
        "type",
        "name",
        "address1",
        "postalCode",
        "city",
        "countryCode",
    ] {
        let body = remove(s.body(), "/parties/0", field);
        s.assert_rejected(body, &format!("parties[0].{field}"))
            .await;
    }
}

#[tokio::test]
async fn a_party_with_an_empty_required_field_is_400_naming_it() {
    let s = Setup::new().await;
    for (field, value) in [
        ("name", ""),
        ("address1", ""),
        ("postalCode", ""),
        ("city", ""),
        ("countryCode", ""),
    ] {
        let body = set(s.body(), &format!("/parties/0/{field}"), json!(value));
        s.assert_rejected(body, &format!("parties[0].{field}"))
            .await;
    }
}

#[tokio::test]
async fn a_shipment_with_empty_parties_or_parcels_is_400_naming_them() {
    let s = Setup::new().await;
    s.assert_rejected(with(s.body(), "parties", json!([])), "parties")
        .await;
    s.assert_rejected(with(s.body(), "parcels", json!([])), "parcels")
        .await;
}

#[tokio::test]
async fn a_shipment_without_a_required_field_is_400_naming_it() {
    let s = Setup::new().await;
    for field in [
        "reference",
        "senderAddressId",
        "parties",
        "type",
        "carrierSettings",
        "parcels",
    ] {
        let body = remove(s.body(), "", field);
        s.assert_rejected(body, field).await;
    }
}

#[tokio::test]
async fn a_parcel_weight_must_be_present_and_greater_than_zero() {
    let s = Setup::new().await;
    for weight in [json!(0), json!(-1.5)] {
        let body = set(s.body(), "/parcels/0/weight", weight);
        s.assert_rejected(body, "parcels[0].weight").await;
    }
    let body = remove(s.body(), "/parcels/0", "weight");
    s.assert_rejected(body, "parcels[0].weight").await;
}

#[tokio::test]
async fn a_parcel_weight_unit_outside_kg_g_lb_oz_is_400() {
    let s = Setup::new().await;
    let body = set(s.body(), "/parcels/0/weightUnit", json!("stone"));
    s.assert_rejected(body, "parcels[0].weightUnit").await;
}

#[tokio::test]
async fn an_order_line_needs_a_sku_and_a_quantity_of_at_least_one() {
    let s = Setup::new().await;
    let body = remove(s.body(), "/parcels/0/orderLines/0", "sku");
    s.assert_rejected(body, "parcels[0].orderLines[0].sku")
        .await;
    let body = set(s.body(), "/parcels/0/orderLines/0/sku", json!(""));
    s.assert_rejected(body, "parcels[0].orderLines[0].sku")
        .await;
    for quantity in [0, -1] {
        let body = set(
            s.body(),
            "/parcels/0/orderLines/0/quantity",
            json!(quantity),
        );
        s.assert_rejected(body, "parcels[0].orderLines[0].quantity")
            .await;
    }
}

#[tokio::test]
async fn a_shipment_type_or_status_outside_its_enum_is_400() {
    let s = Setup::new().await;
    s.assert_rejected(with(s.body(), "type", json!("sideways")), "type")
        .await;
    s.assert_rejected(with(s.body(), "status", json!("shipped")), "status")
        .await;
}

#[tokio::test]
async fn a_shipment_with_an_unknown_or_foreign_carrier_is_400() {
    let s = Setup::new().await;
    let other = s.app.create_org();
    let (_, foreign) = s.app.create_address_and_carrier(&other).await;
    for carrier_id in [
        json!("car_01ARZ3NDEKTSV4RRFFQ69G5FAV"),
        foreign["id"].clone(),
    ] {
        let body = set(s.body(), "/carrierSettings/carrierId", carrier_id);
        s.assert_rejected(body, "carrierSettings.carrierId").await;
    }
}

#[tokio::test]
async fn a_shipment_with_a_foreign_sender_address_is_400() {
    let s = Setup::new().await;
    let other = s.app.create_org();
    let foreign = s.app.create_sender_address(&other).await;
    let body = with(s.body(), "senderAddressId", foreign["id"].clone());
    s.assert_rejected(body, "senderAddressId").await;
}

#[tokio::test]
async fn a_string_where_a_number_belongs_is_validation_failed_not_invalid_json() {
    let s = Setup::new().await;
    let body = set(s.body(), "/parcels/0/weight", json!("1.5"));
    s.assert_rejected(body, "parcels[0].weight").await;
    let body = set(s.body(), "/parcels/0/orderLines/0/quantity", json!("two"));
    s.assert_rejected(body, "parcels[0].orderLines[0].quantity")
        .await;
}

#[tokio::test]
async fn a_body_that_is_not_json_is_invalid_json() {
    let s = Setup::new().await;
    let resp = s
        .app
        .client
        .post(s.app.url(&s.path()))
        .bearer_auth(&s.org.token)
        .header("content-type", "application/json")
        .body("{\"reference\": ")
        .send()
        .await
        .expect("request");
    crate::helpers::Reply::read(resp)
        .await
        .problem(400, "invalid_json");
}

#[tokio::test]
async fn getting_a_shipment_returns_what_was_created() {
    let s = Setup::new().await;
    let created = s.create(s.body()).await;
    let got = s
        .app
        .get(&format!("{}/{}", s.path(), id_of(&created)), &s.org.token)
        .await
        .expect(200);
    assert_eq!(got, created);
}

#[tokio::test]
async fn getting_an_unknown_shipment_is_404() {
    let s = Setup::new().await;
    s.app
        .get(
            &format!("{}/shp_01ARZ3NDEKTSV4RRFFQ69G5FAV", s.path()),
            &s.org.token,
        )
        .await
        .problem(404, "not_found");
}

#[tokio::test]
async fn another_orgs_token_cannot_read_a_shipment() {
    let s = Setup::new().await;
    let other = s.app.create_org();
    let created = s.create(s.body()).await;
    let id = id_of(&created);
    for org_id in [&s.org.id, &other.id] {
        s.app
            .get(&format!("/orgs/{org_id}/shipments/{id}"), &other.token)
            .await
            .problem(404, "not_found");
    }
    let list = s
        .app
        .get(&format!("/orgs/{}/shipments", other.id), &other.token)
        .await
        .expect(200);
    assert_eq!(list["total"], 0);
}

#[tokio::test]
async fn a_shipment_list_item_has_the_summary_fields_and_the_sender_address() {
    let s = Setup::new().await;
    let created = s.create(s.body()).await;
    let list = s.list("").await;
    assert_eq!(list["total"], 1);
    assert_eq!(list["page"], 1);
    assert_eq!(list["limit"], 20);
    assert_eq!(list["totalPages"], 1);
    let item = &list["data"][0];
    for key in [
        "id",
        "reference",
        "type",
        "carrierSettings",
        "status",
        "createdAt",
        "updatedAt",
    ] {
        assert_eq!(item[key], created[key], "{key}: {item}");
    }
    assert_eq!(item["senderAddress"], s.address);
}

#[tokio::test]
async fn shipments_are_listed_newest_first_in_pages() {
    let s = Setup::new().await;
    let mut ids = Vec::new();
    for n in 1..=5 {
        let shipment = s
            .create(with(s.body(), "reference", json!(format!("REF-{n}"))))
            .await;
        ids.push(id_of(&shipment));
        tokio::time::sleep(Duration::from_millis(5)).await;
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
    let beyond = s.list("limit=2&page=4").await;
    assert_eq!(beyond["data"], json!([]));
    assert_eq!(beyond["total"], 5);
    assert_eq!(beyond["page"], 4);
}

#[tokio::test]
async fn shipments_can_be_filtered_by_status_and_reference() {
    let s = Setup::new().await;
    let draft = s
        .create(with(
            with(s.body(), "status", json!("draft")),
            "reference",
            json!("REF-A"),
        ))
        .await;
    let pending = s.create(with(s.body(), "reference", json!("REF-B"))).await;
    let on_hold = s
        .create(with(
            with(s.body(), "status", json!("on_hold")),
            "reference",
            json!("REF-B"),
        ))
        .await;
    let by_status = s.list("status=draft").await;
    assert_eq!(by_status["total"], 1);
    assert_eq!(page_ids(&by_status), [id_of(&draft)]);
    let by_reference = s.list("reference=REF-B").await;
    assert_eq!(by_reference["total"], 2);
    let mut found = page_ids(&by_reference);
    found.sort();
    let mut expected = vec![id_of(&pending), id_of(&on_hold)];
    expected.sort();
    assert_eq!(found, expected);
    let both = s.list("status=on_hold&reference=REF-B").await;
    assert_eq!(page_ids(&both), [id_of(&on_hold)]);
    let none = s.list("status=cancelled").await;
    assert_eq!(none["total"], 0);
    assert_eq!(none["data"], json!([]));
}

#[tokio::test]
async fn shipments_can_be_filtered_by_creation_time() {
    let s = Setup::new().await;
    let mut shipments = Vec::new();
    for _ in 0..3 {
        shipments.push(s.create(s.body()).await);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let [first, middle, last] = [&shipments[0], &shipments[1], &shipments[2]];
    let at = middle["createdAt"].as_str().unwrap_or_default().to_string();
    assert_ne!(first["createdAt"], middle["createdAt"]);
    assert_ne!(last["createdAt"], middle["createdAt"]);
    let from = s.list(&format!("createdFrom={at}")).await;
    assert_eq!(page_ids(&from), [id_of(last), id_of(middle)]);
    let to = s.list(&format!("createdTo={at}")).await;
    assert_eq!(page_ids(&to), [id_of(middle), id_of(first)]);
    let exactly = s.list(&format!("createdFrom={at}&createdTo={at}")).await;
    assert_eq!(page_ids(&exactly), [id_of(middle)]);
}

#[tokio::test]
async fn an_unparsable_created_from_or_bad_status_filter_is_400() {
    let s = Setup::new().await;
    for (query, field) in [
        ("createdFrom=yesterday", "createdFrom"),
        ("createdTo=2026-13-45", "createdTo"),
        ("status=shipped", "status"),
    ] {
        let reply = s
            .app
            .get(&format!("{}?{query}", s.path()), &s.org.token)
            .await;
        assert_invalid(reply, field);
    }
}

#[tokio::test]
async fn shipment_list_page_and_limit_out_of_range_are_400() {
    let s = Setup::new().await;
    for (query, field) in [
        ("page=0", "page"),
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=abc", "limit"),
        ("page=abc", "page"),
    ] {
        let reply = s
            .app
            .get(&format!("{}?{query}", s.path()), &s.org.token)
            .await;
        assert_invalid(reply, field);
    }
    let max = s.list("limit=100").await;
    assert_eq!(max["limit"], 100);
}

#[tokio::test]
async fn a_read_only_token_can_list_and_get_shipments_but_not_create_them() {
    let s = Setup::new().await;
    let created = s.create(s.body()).await;
    let read_only = s.app.create_token(&s.org, "read:shipments");
    let reply = s.app.post(&s.path(), &read_only, s.body()).await;
    let www_authenticate = reply.header("www-authenticate");
    reply.problem(403, "insufficient_scope");
    assert!(
        www_authenticate.contains("insufficient_scope")
            && www_authenticate.contains("write:shipments"),
        "{www_authenticate}"
    );
    let list = s.app.get(&s.path(), &read_only).await.expect(200);
    assert_eq!(page_ids(&list), [id_of(&created)]);
    let got = s
        .app
        .get(&format!("{}/{}", s.path(), id_of(&created)), &read_only)
        .await
        .expect(200);
    assert_eq!(got, created);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shipments_created_in_the_same_millisecond_are_ordered_by_id_descending() {
    let s = Setup::new().await;
    // Sent concurrently so that several share a createdAt and the id decides.
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..20 {
        let request = s
            .app
            .client
            .post(s.app.url(&s.path()))
            .bearer_auth(&s.org.token)
            .json(&s.body());
        tasks.spawn(async move {
            let response = request.send().await.expect("request");
            crate::helpers::Reply::read(response).await.expect(201)
        });
    }
    assert_eq!(tasks.join_all().await.len(), 20);
    let list = s.list("").await;
    let keys: Vec<(String, String)> = list["data"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|item| {
            let created = item["createdAt"].as_str().unwrap_or_default().to_string();
            (created, id_of(item))
        })
        .collect();
    assert_eq!(keys.len(), 20);
    let mut sorted = keys.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(keys, sorted, "createdAt desc, then id desc");
}
