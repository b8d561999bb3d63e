//! Gets and lists of shipments are written from the JSON each write stores (issue 30): the
//! bytes stay those of the model, every kind of write keeps them current (edits, booking,
//! status, a rule's deletion), and shipments stored before the representation existed answer
//! the same until housekeeping gives them one.

use serde_json::{Map, Value, json};
use shipbase::model::shipment::wire::Gaps;

use crate::fixtures::{Shop, id_of, rule_body};

/// The raw text of a 200 answer, checked to be JSON with the content type of every answer.
pub async fn text_of(shop: &Shop, path: &str) -> String {
    let reply = shop.app.get(path, &shop.org.token).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.text);
    assert_eq!(
        reply.header("content-type"),
        "application/json; charset=utf-8"
    );
    reply.text
}

/// What a shipment answers and the list of the organization, both raw.
async fn answers(shop: &Shop, id: &str) -> (String, String) {
    (
        text_of(shop, &shop.path(id, "")).await,
        text_of(shop, &format!("/orgs/{}/shipments?limit=100", shop.org.id)).await,
    )
}

/// `text` parsed, serialized again with sorted keys and compact: the bytes an answer of the
/// model has.
pub fn canonical(text: &str) -> String {
    let value: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    serde_json::to_string(&value).unwrap_or_default()
}

#[tokio::test]
async fn every_write_keeps_the_answers_current() {
    let shop = Shop::new().await;
    let rule = shop
        .app
        .create_rule(
            &shop.org,
            rule_body(&id_of(&shop.carrier), &id_of(&shop.address)),
        )
        .await;
    let id = id_of(&shop.create(shop.body()).await);
    let (get, list) = answers(&shop, &id).await;
    assert_eq!(get, canonical(&get), "compact, keys sorted");
    assert_eq!(list, canonical(&list));
    let shipment: Value = serde_json::from_str(&get).unwrap_or_default();
    assert_eq!(shipment["documents"], json!([]));
    assert_eq!(shipment["shippingRule"], Value::Null);
    assert_eq!(shipment["status"], "pending");

    let edited = shop
        .app
        .patch(
            &shop.path(&id, ""),
            &shop.org.token,
            json!({"reference": "EDITED \"quoted\" – ø"}),
        )
        .await
        .expect(200);
    let (get, list) = answers(&shop, &id).await;
    assert_eq!(get, serde_json::to_string(&edited).unwrap_or_default());
    let page: Value = serde_json::from_str(&list).unwrap_or_default();
    assert_eq!(page["data"][0]["reference"], "EDITED \"quoted\" – ø");
    assert_eq!(page["total"], 1);

    shop.post(
        &id,
        "/apply-shipping-rule",
        json!({"shippingRuleId": id_of(&rule)}),
    )
    .await
    .expect(200);
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    let get = text_of(&shop, &shop.path(&id, "")).await;
    assert_eq!(get, serde_json::to_string(&booked).unwrap_or_default());
    let shipment: Value = serde_json::from_str(&get).unwrap_or_default();
    assert_eq!(shipment["status"], "processing");
    assert_eq!(shipment["shippingRuleId"], id_of(&rule));
    assert_eq!(shipment["shippingRule"]["id"], id_of(&rule));
    assert_eq!(shipment["documents"][0]["documentType"], "label");
    assert!(shipment["tracking"]["number"].is_string(), "{shipment}");

    // Deleting the rule clears it in the row alone (ON DELETE SET NULL): the answer follows.
    shop.app
        .delete(
            &format!("/orgs/{}/shipping-rules/{}", shop.org.id, id_of(&rule)),
            &shop.org.token,
        )
        .await
        .expect(200);
    let shipment: Value =
        serde_json::from_str(&text_of(&shop, &shop.path(&id, "")).await).unwrap_or_default();
    assert_eq!(shipment["shippingRuleId"], Value::Null);
    assert_eq!(shipment["shippingRule"], Value::Null);
    assert_eq!(shipment["tracking"], booked["tracking"]);

    let status = shop
        .app
        .set_shipment_status(&shop.org, &id, "dispatched")
        .await;
    let get = text_of(&shop, &shop.path(&id, "")).await;
    assert_eq!(get, serde_json::to_string(&status).unwrap_or_default());
}

/// The nested parts of a shipment as rows stored before V28 hold them (`body`).
fn legacy_body(shipment: &Value) -> String {
    let mut body = Map::new();
    for key in [
        "parties",
        "carrierSettings",
        "parcels",
        "servicePointId",
        "pickupDetails",
        "tracking",
    ] {
        body.insert(key.into(), shipment[key].clone());
    }
    // Written only when set.
    for key in ["language", "trackingUrl"] {
        if !shipment[key].is_null() {
            body.insert(key.into(), shipment[key].clone());
        }
    }
    Value::Object(body).to_string()
}

#[tokio::test]
async fn shipments_stored_before_answer_the_same_and_are_given_their_representation() {
    let shop = Shop::new().await;
    let booked = id_of(&shop.create(shop.body()).await);
    shop.app.book_shipment(&shop.org, &booked).await;
    let pending = id_of(&shop.create(shop.body()).await);
    let before = [
        answers(&shop, &booked).await,
        answers(&shop, &pending).await,
    ];
    // As an upgraded database has them: the parts in `body`, no representation.
    for id in [&booked, &pending] {
        let shipment: Value =
            serde_json::from_str(&text_of(&shop, &shop.path(id, "")).await).unwrap_or_default();
        let legacy = legacy_body(&shipment);
        assert_eq!(
            shop.app.db_execute(
                "UPDATE shipments SET body = ?2, repr = NULL WHERE id = ?1",
                &[id, &legacy]
            ),
            1
        );
    }
    let after = [
        answers(&shop, &booked).await,
        answers(&shop, &pending).await,
    ];
    assert!(after == before, "answers changed: {after:?}");

    // The worker gives them their representation when it starts (as after an upgrade).
    let Shop { app, org, .. } = shop;
    let app = app.restart_with("").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while app
        .db_text("SELECT id FROM shipments WHERE repr IS NULL", &[])
        .is_some()
    {
        assert!(std::time::Instant::now() < deadline, "never rendered");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        app.db_text("SELECT body FROM shipments WHERE id = ?1", &[&booked])
            .as_deref(),
        Some("")
    );
    let shop = Shop {
        address: Value::Null,
        carrier: Value::Null,
        app,
        org,
    };
    let rendered = [
        answers(&shop, &booked).await,
        answers(&shop, &pending).await,
    ];
    assert!(rendered == before, "answers changed: {rendered:?}");
}

/// The stored offsets of a shipment's row (V34), checked to be where its representation's
/// `"id"` and `"status"` members begin.
fn offsets_fit(shop: &Shop, id: &str) -> bool {
    let text = |sql: &str| shop.app.db_text(sql, &[id]).unwrap_or_default();
    let at = |column: &str| -> i64 {
        text(&format!(
            "SELECT CAST({column} AS TEXT) FROM shipments WHERE id = ?1"
        ))
        .parse()
        .unwrap_or(-1)
    };
    Gaps::at(at("repr_id_at"), at("repr_status_at"))
        .is_some_and(|gaps| gaps.fit(&text("SELECT repr FROM shipments WHERE id = ?1")))
}

/// A get writes its answer around the offsets every write stores with the representation;
/// a row without them (written before V34), or with offsets that do not fit, answers the same.
#[tokio::test]
async fn a_get_is_written_around_the_stored_offsets_and_answers_the_same_without_them() {
    let shop = Shop::new().await;
    let rule = shop
        .app
        .create_rule(
            &shop.org,
            rule_body(&id_of(&shop.carrier), &id_of(&shop.address)),
        )
        .await;
    let id = id_of(&shop.create(shop.body()).await);
    assert!(offsets_fit(&shop, &id), "a create stores them");
    shop.post(
        &id,
        "/apply-shipping-rule",
        json!({"shippingRuleId": id_of(&rule)}),
    )
    .await
    .expect(200);
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    assert!(offsets_fit(&shop, &id), "every write stores them");
    let get = text_of(&shop, &shop.path(&id, "")).await;
    assert_eq!(get, serde_json::to_string(&booked).unwrap_or_default());
    assert_eq!(get, canonical(&get));

    for (id_at, status_at) in [(None, None), (Some("1"), Some("2"))] {
        let set = match (id_at, status_at) {
            (Some(a), Some(b)) => format!("repr_id_at = {a}, repr_status_at = {b}"),
            _ => "repr_id_at = NULL, repr_status_at = NULL".to_string(),
        };
        assert_eq!(
            shop.app
                .db_execute(&format!("UPDATE shipments SET {set} WHERE id = ?1"), &[&id]),
            1
        );
        assert_eq!(text_of(&shop, &shop.path(&id, "")).await, get, "{set}");
    }
}
