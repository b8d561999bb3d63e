//! Gets and lists of orders and shipping rules are written from the JSON each write stores
//! (issue 30), as those of shipments are: the bytes are the model's (the answers of creates,
//! updates and cancels, which the model writes), an order's answer follows its shipments' writes
//! and its rule's deletion, and rows stored before the representation existed answer the same
//! until housekeeping gives them one.

use serde_json::{Map, Value, json};

use crate::{
    fixtures::{Shop, id_of, order_body, order_channel_body, order_shipment_body, rule_body, with},
    stored_answers::{canonical, text_of},
};

/// An order's and a rule's answers, and the lists of both, all raw.
async fn answers(shop: &Shop, order_id: &str, rule_id: &str) -> [String; 4] {
    let org = &shop.org.id;
    [
        text_of(shop, &format!("/orgs/{org}/orders/{order_id}")).await,
        text_of(shop, &format!("/orgs/{org}/orders")).await,
        text_of(shop, &format!("/orgs/{org}/shipping-rules/{rule_id}")).await,
        text_of(shop, &format!("/orgs/{org}/shipping-rules")).await,
    ]
}

fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// An order, its rule and a shipment of it: the ids of the three.
async fn order_with_rule_and_shipment(shop: &Shop) -> (String, String, String) {
    let (address, carrier) = (id_of(&shop.address), id_of(&shop.carrier));
    let rule = shop
        .app
        .create_rule(&shop.org, rule_body(&carrier, &address))
        .await;
    let channel = shop
        .app
        .create_order_channel(&shop.org, order_channel_body("manual"))
        .await;
    let body = with(
        order_body(&id_of(&channel), "1001"),
        "shippingRuleId",
        json!(id_of(&rule)),
    );
    let order = shop.app.create_order(&shop.org, body).await;
    let [get, list, rule_get, rule_list] = answers(shop, &id_of(&order), &id_of(&rule)).await;
    for text in [&get, &list, &rule_get, &rule_list] {
        assert_eq!(*text, canonical(text), "compact, keys sorted");
    }
    assert_eq!(get, serde_json::to_string(&order).unwrap_or_default());
    assert_eq!(parsed(&list)["data"], json!([order]));
    assert_eq!(rule_get, serde_json::to_string(&rule).unwrap_or_default());
    assert_eq!(parsed(&rule_list)["data"], json!([rule]));
    let shipment = shop
        .app
        .create_order_shipment(
            &shop.org,
            &id_of(&order),
            order_shipment_body(&address, &carrier),
        )
        .await;
    (id_of(&order), id_of(&rule), id_of(&shipment))
}

#[tokio::test]
async fn every_write_keeps_order_and_rule_answers_current() {
    let shop = Shop::new().await;
    let (order, rule, shipment) = order_with_rule_and_shipment(&shop).await;
    let org = shop.org.id.clone();
    let order_path = format!("/orgs/{org}/orders/{order}");

    // The order carries its shipment's summary, which follows the shipment's edits.
    shop.app
        .patch(
            &shop.path(&shipment, ""),
            &shop.org.token,
            json!({"reference": "EDITED \"quoted\" – ø"}),
        )
        .await
        .expect(200);
    let answer = parsed(&text_of(&shop, &order_path).await);
    assert_eq!(answer["shipments"][0]["id"], shipment);
    assert_eq!(answer["shipments"][0]["reference"], "EDITED \"quoted\" – ø");
    assert_eq!(answer["shipments"][0]["documents"], json!([]));
    assert_eq!(answer["shippingRule"]["id"], rule);

    // A rule replaced: its answer is the replacement's.
    let replaced = shop
        .app
        .put(
            &format!("/orgs/{org}/shipping-rules/{rule}"),
            &shop.org.token,
            with(
                rule_body(&id_of(&shop.carrier), &id_of(&shop.address)),
                "name",
                json!("Renamed ✓"),
            ),
        )
        .await
        .expect(200);
    let [_, _, rule_get, _] = answers(&shop, &order, &rule).await;
    assert_eq!(
        rule_get,
        serde_json::to_string(&replaced).unwrap_or_default()
    );
    assert_eq!(
        parsed(&text_of(&shop, &order_path).await)["shippingRule"]["name"],
        "Renamed ✓"
    );

    // A cancel (the order and its shipment): the answer is the cancel's.
    let cancelled = shop
        .app
        .call(
            reqwest::Method::POST,
            &format!("{order_path}/cancel"),
            Some(&shop.org.token),
            None,
        )
        .await
        .expect(200);
    let get = text_of(&shop, &order_path).await;
    assert_eq!(get, serde_json::to_string(&cancelled).unwrap_or_default());
    assert_eq!(parsed(&get)["status"], "cancelled");
    assert_eq!(parsed(&get)["shipments"][0]["status"], "cancelled");

    // Deleting the rule clears it in the row alone (ON DELETE SET NULL): the answer follows.
    shop.app
        .delete(
            &format!("/orgs/{org}/shipping-rules/{rule}"),
            &shop.org.token,
        )
        .await
        .expect(200);
    let answer = parsed(&text_of(&shop, &order_path).await);
    assert_eq!(answer["shippingRuleId"], Value::Null);
    assert_eq!(answer["shippingRule"], Value::Null);
    assert_eq!(answer["customerName"], "Jane Customer");
}

#[tokio::test]
async fn orders_and_rules_stored_before_answer_the_same_and_are_given_their_representation() {
    let shop = Shop::new().await;
    let (order, rule, _) = order_with_rule_and_shipment(&shop).await;
    let before = answers(&shop, &order, &rule).await;
    // As an upgraded database has them: an order's parts in `body`, no representations.
    let answer = parsed(&before[0]);
    let mut body = Map::new();
    for key in [
        "orderLines",
        "customerName",
        "customerEmail",
        "notes",
        "currency",
        "totalAmount",
        "shippingAddress",
        "externalData",
    ] {
        body.insert(key.into(), answer[key].clone());
    }
    let legacy = Value::Object(body).to_string();
    let sql = "UPDATE orders SET body = ?2, repr = NULL WHERE id = ?1";
    assert_eq!(shop.app.db_execute(sql, &[&order, &legacy]), 1);
    let sql = "UPDATE shipping_rules SET repr = NULL WHERE id = ?1";
    assert_eq!(shop.app.db_execute(sql, &[&rule]), 1);
    let after = answers(&shop, &order, &rule).await;
    assert!(after == before, "answers changed: {after:?}");

    // The worker gives them their representations when it starts (as after an upgrade).
    let Shop {
        app,
        org,
        address,
        carrier,
    } = shop;
    let app = app.restart_with("").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let unrendered = "SELECT id FROM orders WHERE repr IS NULL
                      UNION ALL SELECT id FROM shipping_rules WHERE repr IS NULL";
    while app.db_text(unrendered, &[]).is_some() {
        assert!(std::time::Instant::now() < deadline, "never rendered");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        app.db_text("SELECT body FROM orders WHERE id = ?1", &[&order])
            .as_deref(),
        Some("")
    );
    let shop = Shop {
        app,
        org,
        address,
        carrier,
    };
    let rendered = answers(&shop, &order, &rule).await;
    assert!(rendered == before, "answers changed: {rendered:?}");
}
