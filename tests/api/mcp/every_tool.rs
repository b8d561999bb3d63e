//! Every tool, called once in each era a client may speak with structured results (2026-07-28,
//! 2025-11-25, 2025-06-18), on real data: each answer succeeds and fits the `outputSchema` that
//! era's `tools/list` shows (`Mcp::call` checks it), and no tool of the list is left uncalled.

use std::collections::BTreeSet;

use serde_json::{Value, json};
use shipbase::model::scope::Resource;

use super::{Answer, Mcp};
use crate::{
    browser::connect,
    fixtures::{
        carrier_body, id_of, order_body, order_channel_body, order_shipment_body, parcel_body,
        receiver_party, rule_body, sender_address_body, shipment_body,
    },
    helpers::{TestApp, TestOrg},
};

/// A client that calls tools and remembers which.
struct Walk<'a> {
    mcp: Mcp<'a>,
    called: BTreeSet<String>,
}

impl Walk<'_> {
    /// Calls `name`, asserting success; the structured content (a list as its items).
    async fn call(&mut self, name: &str, arguments: Value) -> Value {
        let answer: Answer = self.mcp.call(name, arguments).await;
        let result = answer.result();
        assert!(
            result["isError"] != true && result["resultType"] != "input_required",
            "{name} ({:?}): {}",
            self.mcp.version,
            answer.text
        );
        self.called.insert(name.to_string());
        match &result["structuredContent"] {
            Value::Object(map) if map.len() == 1 && map.contains_key("data") => map["data"].clone(),
            other => other.clone(),
        }
    }
}

#[tokio::test]
async fn every_tool_answers_within_its_output_schema_in_every_era() {
    let app = TestApp::spawn_with("[webhooks]\nallow_private_targets = true").await;
    for (n, version) in [None, Some("2025-11-25"), Some("2025-06-18")]
        .into_iter()
        .enumerate()
    {
        let org = app.create_org();
        let writes: Vec<String> = Resource::ALL
            .iter()
            .map(|r| format!("write:{}", r.name()))
            .collect();
        let writes: Vec<&str> = writes.iter().map(String::as_str).collect();
        let agent = connect(&app, &org, &writes).await;
        let mut mcp = Mcp::new(&app, agent.access());
        if let Some(version) = version {
            mcp.initialize(version).await;
        }
        let listed: BTreeSet<String> = mcp.tool_names().await.into_iter().collect();
        let mut walk = Walk {
            mcp,
            called: BTreeSet::new(),
        };
        every_tool(&mut walk, &org, n).await;
        assert_eq!(
            listed.difference(&walk.called).collect::<Vec<_>>(),
            Vec::<&String>::new(),
            "tools never called in {version:?}"
        );
    }
}

async fn every_tool(w: &mut Walk<'_>, org: &TestOrg, n: usize) {
    // The organization and its people.
    w.call("get_organization", json!({})).await;
    w.call("update_organization", json!({"name": "Renamed"}))
        .await;
    w.call("get_branding", json!({})).await;
    w.call("update_branding", json!({"color": "#112233"})).await;
    w.call("get_billing_usage", json!({})).await;
    w.call(
        "update_notification_settings",
        json!({"booked": {"enabled": true}}),
    )
    .await;
    w.call("get_notification_settings", json!({})).await;
    w.call(
        "update_returns_portal",
        json!({"reasons": ["Too small", "Changed my mind"]}),
    )
    .await;
    w.call("get_returns_portal", json!({})).await;
    w.call(
        "preview_notification",
        json!({"event": "delivered", "language": "da"}),
    )
    .await;
    let member = w
        .call(
            "add_member",
            json!({"email": format!("member-{n}@example.com"), "name": "M", "role": "member"}),
        )
        .await;
    let member_id = id_of(&member);
    w.call(
        "update_member",
        json!({"userId": member_id, "role": "admin"}),
    )
    .await;
    w.call("list_members", json!({})).await;
    w.call("remove_member", json!({"userId": member_id})).await;

    // Sender addresses, carriers, rules.
    let address_id = id_of(&w.call("create_sender_address", sender_address_body()).await);
    let mut replaced = sender_address_body();
    replaced["addressId"] = json!(address_id);
    w.call("update_sender_address", replaced).await;
    w.call("get_sender_address", json!({"addressId": address_id}))
        .await;
    w.call("list_sender_addresses", json!({})).await;
    let spare = id_of(&w.call("create_sender_address", sender_address_body()).await);
    w.call("delete_sender_address", json!({"addressId": spare}))
        .await;

    w.call("list_available_carriers", json!({})).await;
    let carrier_id = id_of(&w.call("create_carrier", carrier_body(&address_id)).await);
    let mut replaced = carrier_body(&address_id);
    replaced["carrierId"] = json!(carrier_id);
    w.call("update_carrier", replaced).await;
    w.call("get_carrier", json!({"carrierId": carrier_id}))
        .await;
    w.call("list_carriers", json!({})).await;
    let spare = id_of(&w.call("create_carrier", carrier_body(&address_id)).await);
    w.call("delete_carrier", json!({"carrierId": spare})).await;

    let rule_id = id_of(
        &w.call("create_shipping_rule", rule_body(&carrier_id, &address_id))
            .await,
    );
    let mut replaced = rule_body(&carrier_id, &address_id);
    replaced["ruleId"] = json!(rule_id);
    w.call("update_shipping_rule", replaced).await;
    w.call("get_shipping_rule", json!({"ruleId": rule_id}))
        .await;
    w.call("list_shipping_rules", json!({})).await;
    let spare = id_of(
        &w.call("create_shipping_rule", rule_body(&carrier_id, &address_id))
            .await,
    );
    w.call("delete_shipping_rule", json!({"ruleId": spare}))
        .await;
    w.call(
        "quote_shipping_rates",
        json!({"destination": {"country": "DK"},
               "items": [{"name": "Mug", "quantity": 1, "grams": 500, "price": 4900}]}),
    )
    .await;
    w.call(
        "validate_address",
        json!({"address1": "Main Street 1", "postalCode": "8000", "city": "Aarhus", "countryCode": "DK"}),
    )
    .await;
    w.call(
        "compare_carrier_rates",
        json!({"senderAddressId": address_id, "parties": [receiver_party()],
               "parcels": [parcel_body(1.0, &[("A", 1)])]}),
    )
    .await;

    // Shipments: edit, split, book, documents, track, return.
    let mut body = shipment_body(&address_id, &carrier_id);
    body["reference"] = json!(format!("WALK-{n}"));
    body["parcels"] = json!([
        parcel_body(2.0, &[("A", 4), ("B", 2)]),
        parcel_body(1.0, &[("C", 1)])
    ]);
    let shipment = w.call("create_shipment", body.clone()).await;
    let shipment_id = id_of(&shipment);
    let on = |extra: Value| {
        let mut args = extra;
        args["shipmentId"] = json!(shipment_id);
        args
    };
    w.call(
        "update_shipment",
        on(json!({"reference": format!("WALK-{n}-A")})),
    )
    .await;
    w.call(
        "apply_shipping_rule",
        on(json!({"shippingRuleId": rule_id})),
    )
    .await;
    let parcels = shipment["parcels"].as_array().cloned().unwrap_or_default();
    let first = id_of(&parcels[0]);
    let line_a = id_of(&parcels[0]["orderLines"][0]);
    let line_b = id_of(&parcels[0]["orderLines"][1]);
    w.call(
        "split_parcel",
        on(json!({"parcelId": first, "orderLineIds": [line_a]})),
    )
    .await;
    w.call(
        "batch_split_parcel",
        on(json!({"parcelId": first,
                  "shipments": [{"orderLines": [{"id": line_b, "quantity": 1}]}]})),
    )
    .await;
    let booked = w.call("book_shipment", on(json!({}))).await;
    let document_id = id_of(&booked["documents"][0]);
    w.call("get_shipment", on(json!({}))).await;
    w.call("list_shipments", json!({})).await;
    let merged = w
        .call(
            "merge_documents",
            json!({"shipmentIds": [shipment_id], "documentType": "label"}),
        )
        .await;
    assert_eq!(
        merged["resourceUri"],
        format!(
            "shipbase://orgs/{}/documents/merged?documentType=label&shipmentIds={shipment_id}",
            org.id
        )
    );
    let read = if w.mcp.session.is_some() {
        w.mcp
            .legacy("resources/read", json!({"uri": merged["resourceUri"]}))
            .await
    } else {
        w.mcp
            .modern("resources/read", json!({"uri": merged["resourceUri"]}))
            .await
    };
    let blob = read.result()["contents"][0]["blob"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    use base64::Engine;
    let pdf = base64::engine::general_purpose::STANDARD
        .decode(blob)
        .expect("base64");
    assert!(pdf.starts_with(b"%PDF"), "{}", read.text);
    assert_eq!(merged["size"], json!(pdf.len()));
    w.call(
        "get_shipment_document",
        on(json!({"documentId": document_id})),
    )
    .await;
    // Pickups: the booked shipment, collected by its carrier.
    let pickup = w
        .call(
            "create_pickup",
            json!({"carrierId": carrier_id, "date": "2031-03-04", "readyFrom": "09:00",
                   "readyUntil": "16:00", "senderAddressId": address_id,
                   "shipmentIds": [shipment_id]}),
        )
        .await;
    assert_eq!(pickup["status"], "booked", "{pickup}");
    let pickup_id = id_of(&pickup);
    w.call("get_pickup", json!({"pickupId": pickup_id})).await;
    w.call("list_pickups", json!({})).await;
    w.call("cancel_pickup", json!({"pickupId": pickup_id}))
        .await;
    w.call(
        "add_tracking_event",
        on(json!({"status": "in_transit", "description": "On its way"})),
    )
    .await;
    w.call("set_shipment_status", on(json!({"status": "dispatched"})))
        .await;
    w.call("list_shipment_notifications", on(json!({}))).await;
    w.call("track", json!({"query": format!("WALK-{n}-A")}))
        .await;
    w.call("find", json!({"query": format!("WALK-{n}-A")}))
        .await;
    w.call("create_return_shipment", on(json!({}))).await;
    let spare = id_of(&w.call("create_shipment", body.clone()).await);
    w.call("delete_shipment", json!({"shipmentId": spare}))
        .await;

    // Printers.
    let printer =
        json!({"name": "Desk", "kind": "raw", "address": "10.0.0.9:9100", "format": "pdf"});
    let printer_id = id_of(&w.call("create_printer", printer.clone()).await);
    w.call(
        "print_shipment_documents",
        on(json!({"printerId": printer_id})),
    )
    .await;
    w.call("print_test_page", json!({"printerId": printer_id}))
        .await;
    // End of day: the booked shipments of the carrier, and the manifest's PDF by its link.
    let manifest = w
        .call("create_manifest", json!({"carrierId": carrier_id}))
        .await;
    let manifest_id = id_of(&manifest);
    assert!(manifest["document"].get("content").is_none(), "{manifest}");
    let uri = manifest["document"]["resourceUri"].clone();
    let read = if w.mcp.session.is_some() {
        w.mcp.legacy("resources/read", json!({"uri": uri})).await
    } else {
        w.mcp.modern("resources/read", json!({"uri": uri})).await
    };
    let blob = read.result()["contents"][0]["blob"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let pdf = base64::engine::general_purpose::STANDARD
        .decode(blob)
        .expect("base64");
    assert!(pdf.starts_with(b"%PDF"), "{}", read.text);
    w.call("get_manifest", json!({"manifestId": manifest_id}))
        .await;
    w.call("list_manifests", json!({})).await;
    w.call(
        "print_manifest",
        json!({"manifestId": manifest_id, "printerId": printer_id}),
    )
    .await;
    w.call("list_print_jobs", json!({"printerId": printer_id}))
        .await;
    let mut replaced = printer.clone();
    replaced["printerId"] = json!(printer_id);
    replaced["name"] = json!("Desk 2");
    w.call("update_printer", replaced).await;
    w.call("get_printer", json!({"printerId": printer_id}))
        .await;
    w.call("list_printers", json!({})).await;
    w.call("delete_printer", json!({"printerId": printer_id}))
        .await;

    // Orders.
    let channel_id = id_of(
        &w.call("create_order_channel", order_channel_body("manual"))
            .await,
    );
    w.call("get_order_channel", json!({"channelId": channel_id}))
        .await;
    w.call("list_order_channels", json!({})).await;
    let order_id = id_of(
        &w.call("create_order", order_body(&channel_id, &format!("A-{n}")))
            .await,
    );
    let mut args = order_shipment_body(&address_id, &carrier_id);
    args["orderId"] = json!(order_id);
    w.call("create_order_shipment", args).await;
    w.call("get_order", json!({"orderId": order_id})).await;
    w.call("list_orders", json!({})).await;
    w.call("cancel_order", json!({"orderId": order_id})).await;
    let spare = id_of(
        &w.call("create_order", order_body(&channel_id, &format!("B-{n}")))
            .await,
    );
    w.call("delete_order", json!({"orderId": spare})).await;
    let spare = id_of(
        &w.call("create_order_channel", order_channel_body("manual"))
            .await,
    );
    w.call("delete_order_channel", json!({"channelId": spare}))
        .await;

    // API tokens.
    let token_id = id_of(
        &w.call(
            "create_api_token",
            json!({"name": "spare", "scopes": ["read:shipments"]}),
        )
        .await["apiToken"],
    );
    w.call("get_api_token", json!({"tokenId": token_id})).await;
    w.call("list_api_tokens", json!({})).await;
    w.call(
        "rename_api_token",
        json!({"tokenId": token_id, "name": "renamed"}),
    )
    .await;
    w.call("revoke_api_token", json!({"tokenId": token_id}))
        .await;

    // Webhooks, down to a replayed delivery.
    let hook =
        json!({"name": "Hook", "url": "http://127.0.0.1:9/hook", "events": ["order.created"]});
    let webhook_id = id_of(&w.call("create_webhook", hook.clone()).await);
    let mut replaced = hook.clone();
    replaced["webhookId"] = json!(webhook_id);
    w.call("update_webhook", replaced).await;
    w.call(
        "patch_webhook",
        json!({"webhookId": webhook_id, "name": "Hook 2"}),
    )
    .await;
    w.call("get_webhook", json!({"webhookId": webhook_id}))
        .await;
    w.call("list_webhooks", json!({})).await;
    w.call("rotate_webhook_secret", json!({"webhookId": webhook_id}))
        .await;
    w.call("test_webhook", json!({"webhookId": webhook_id}))
        .await;
    // A test is not replayed; an order's event is.
    w.call("create_order", order_body(&channel_id, &format!("C-{n}")))
        .await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    let delivery = loop {
        let log = w
            .call("list_webhook_deliveries", json!({"webhookId": webhook_id}))
            .await;
        let items = if log.is_array() {
            log
        } else {
            log["data"].clone()
        };
        let event = items
            .as_array()
            .into_iter()
            .flatten()
            .find(|d| !d.to_string().contains("webhook.test"));
        if let Some(event) = event {
            break id_of(event);
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no attempt logged: {items}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    w.call(
        "replay_webhook_delivery",
        json!({"webhookId": webhook_id, "deliveryId": delivery}),
    )
    .await;
    w.call("delete_webhook", json!({"webhookId": webhook_id}))
        .await;

    w.call("list_audit_log", json!({})).await;
}
