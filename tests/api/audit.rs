//! The audit log (DESIGN §19): every write operation of the operations table leaves one entry
//! saying who (the token, its user), what, on which resource, when and from where; a write that
//! fails leaves none; an agent's write names its connection.

use std::collections::BTreeSet;

use serde_json::{Value, json};
use shipbase::service::operations::{self, Kind};

use crate::{
    fixtures::{
        assert_timestamp, id_of, order_body, order_channel_body, parcel_body, parcels_of,
        rule_body, sender_address_body, shipment_body,
    },
    helpers::{TestApp, TestOrg},
};

async fn audit(app: &TestApp, org: &TestOrg) -> Vec<Value> {
    let mut entries = Vec::new();
    for page in 1.. {
        let listed = app
            .get(
                &format!("/orgs/{}/audit?limit=100&page={page}", org.id),
                &org.token,
            )
            .await
            .expect(200);
        let data = listed["data"].as_array().unwrap().clone();
        let done = data.len() < 100;
        entries.extend(data);
        if done {
            break;
        }
    }
    entries
}

#[tokio::test]
async fn every_write_operation_leaves_one_entry_and_reads_none() {
    let app = TestApp::spawn_with("[webhooks]\nallow_private_targets = true").await;
    let org = app.create_org();
    let o = |rest: &str| format!("/orgs/{}{rest}", org.id);
    let t = &org.token;

    app.put(&o(""), t, json!({"name": "Renamed"}))
        .await
        .expect(200);
    app.put(&o("/branding"), t, json!({"color": "#112233"}))
        .await
        .expect(200);
    app.put(
        &o("/notification-settings"),
        t,
        json!({"booked": {"enabled": true}}),
    )
    .await
    .expect(200);
    app.put(&o("/returns-portal"), t, json!({"reasons": ["Too small"]}))
        .await
        .expect(200);
    let member = app
        .post(
            &o("/members"),
            t,
            json!({"email": "m@example.com", "name": "M", "role": "member"}),
        )
        .await
        .expect(201);
    let member_id = id_of(&member);
    app.patch(
        &o(&format!("/members/{member_id}")),
        t,
        json!({"role": "admin"}),
    )
    .await
    .expect(200);
    app.delete(&o(&format!("/members/{member_id}")), t)
        .await
        .expect(200);

    let address = app.create_sender_address(&org).await;
    let address_id = id_of(&address);
    app.put(
        &o(&format!("/sender-addresses/{address_id}")),
        t,
        sender_address_body(),
    )
    .await
    .expect(200);
    let spare = app.create_sender_address(&org).await;
    app.delete(&o(&format!("/sender-addresses/{}", id_of(&spare))), t)
        .await
        .expect(200);

    let carrier = app.create_carrier(&org, &address_id).await;
    let carrier_id = id_of(&carrier);
    app.put(
        &o(&format!("/carriers/{carrier_id}")),
        t,
        crate::fixtures::carrier_body(&address_id),
    )
    .await
    .expect(200);
    let spare = app.create_carrier(&org, &address_id).await;
    app.delete(&o(&format!("/carriers/{}", id_of(&spare))), t)
        .await
        .expect(200);

    let rule = app
        .create_rule(&org, rule_body(&carrier_id, &address_id))
        .await;
    let rule_id = id_of(&rule);
    app.put(
        &o(&format!("/shipping-rules/{rule_id}")),
        t,
        rule_body(&carrier_id, &address_id),
    )
    .await
    .expect(200);
    let spare = app
        .create_rule(&org, rule_body(&carrier_id, &address_id))
        .await;
    app.delete(&o(&format!("/shipping-rules/{}", id_of(&spare))), t)
        .await
        .expect(200);

    let mut body = shipment_body(&address_id, &carrier_id);
    body["parcels"] = json!([
        parcel_body(2.0, &[("A", 4), ("B", 2)]),
        parcel_body(1.0, &[("C", 1)])
    ]);
    let shipment = app.create_shipment(&org, body.clone()).await;
    let shipment_id = id_of(&shipment);
    let s = |rest: &str| o(&format!("/shipments/{shipment_id}{rest}"));
    app.patch(&s(""), t, json!({"reference": "EDITED"}))
        .await
        .expect(200);
    app.post(
        &s("/apply-shipping-rule"),
        t,
        json!({"shippingRuleId": rule_id}),
    )
    .await
    .expect(200);
    let parcels = parcels_of(&shipment);
    let first = id_of(&parcels[0]);
    let line_a = id_of(&parcels[0]["orderLines"][0]);
    app.post(
        &s(&format!("/parcels/{first}/split")),
        t,
        json!({"orderLineIds": [line_a]}),
    )
    .await
    .expect(201);
    let line_b = id_of(&parcels[0]["orderLines"][1]);
    app.post(
        &s(&format!("/parcels/{first}/batch-split")),
        t,
        json!({"shipments": [{"orderLines": [{"id": line_b, "quantity": 1}]}]}),
    )
    .await
    .expect(201);
    app.book_shipment(&org, &shipment_id).await;
    let pickup = app
        .post(
            &o("/pickups"),
            t,
            json!({"carrierId": carrier_id, "date": "2031-03-04", "readyFrom": "09:00",
                   "readyUntil": "16:00", "senderAddressId": address_id,
                   "shipmentIds": [shipment_id]}),
        )
        .await
        .expect(201);
    app.delete(&o(&format!("/pickups/{}", id_of(&pickup))), t)
        .await
        .expect(200);
    app.post(
        &s("/tracking-events"),
        t,
        json!({"status": "in_transit", "description": "On its way"}),
    )
    .await
    .expect(200);
    app.set_shipment_status(&org, &shipment_id, "dispatched")
        .await;
    app.post(&s("/create-return"), t, json!({}))
        .await
        .expect(201);
    let spare = app
        .create_shipment(&org, shipment_body(&address_id, &carrier_id))
        .await;
    app.delete(&o(&format!("/shipments/{}", id_of(&spare))), t)
        .await
        .expect(200);

    let printer = app
        .post(
            &o("/printers"),
            t,
            json!({"name": "Desk", "kind": "raw", "address": "10.0.0.9:9100", "format": "pdf"}),
        )
        .await
        .expect(201);
    let printer_path = o(&format!("/printers/{}", id_of(&printer)));
    app.post(&s("/print"), t, json!({"printerId": id_of(&printer)}))
        .await
        .expect(200);
    app.post(&format!("{printer_path}/test-print"), t, json!({}))
        .await
        .expect(202);
    let manifest = app
        .post(&o("/manifests"), t, json!({"carrierId": carrier_id}))
        .await
        .expect(201);
    app.post(
        &o(&format!("/manifests/{}/print", id_of(&manifest))),
        t,
        json!({"printerId": id_of(&printer)}),
    )
    .await
    .expect(202);
    app.put(
        &printer_path,
        t,
        json!({"name": "Desk 2", "kind": "raw", "address": "10.0.0.9:9100", "format": "pdf"}),
    )
    .await
    .expect(200);
    app.delete(&printer_path, t).await.expect(200);

    let channel = app
        .create_order_channel(&org, order_channel_body("manual"))
        .await;
    let channel_id = id_of(&channel);
    let order = app.create_order(&org, order_body(&channel_id, "A-1")).await;
    app.post(
        &o(&format!("/orders/{}/shipments", id_of(&order))),
        t,
        crate::fixtures::order_shipment_body(&address_id, &carrier_id),
    )
    .await
    .expect(201);
    app.post(
        &o(&format!("/orders/{}/cancel", id_of(&order))),
        t,
        json!({}),
    )
    .await
    .expect(200);
    let spare_order = app.create_order(&org, order_body(&channel_id, "A-2")).await;
    app.delete(&o(&format!("/orders/{}", id_of(&spare_order))), t)
        .await
        .expect(200);
    let spare_channel = app
        .create_order_channel(&org, order_channel_body("manual"))
        .await;
    app.delete(&o(&format!("/order-channels/{}", id_of(&spare_channel))), t)
        .await
        .expect(200);

    let (_, token) = app
        .create_api_token(&org, json!({"name": "spare", "scopes": ["read:all"]}))
        .await;
    let token_path = o(&format!("/api-tokens/{}", id_of(&token)));
    app.patch(&token_path, t, json!({"name": "renamed"}))
        .await
        .expect(200);
    app.delete(&token_path, t).await.expect(200);

    let hook = json!({"name": "Hook", "url": "http://127.0.0.1:9/hook", "events": ["order.created"], "isActive": false});
    let webhook = app.post(&o("/webhooks"), t, hook.clone()).await.expect(201);
    let w = |rest: &str| o(&format!("/webhooks/{}{rest}", id_of(&webhook)));
    app.put(&w(""), t, hook).await.expect(200);
    app.patch(&w(""), t, json!({"name": "Hook 2"}))
        .await
        .expect(200);
    app.post(&w("/rotate-secret"), t, json!({}))
        .await
        .expect(200);
    app.post(&w("/test"), t, json!({})).await.expect(200);
    app.delete(&w(""), t).await.expect(200);

    // A delivery of an order's event, failed (nothing listens there), replayed.
    let hook = json!({"name": "ERP", "url": "http://127.0.0.1:9/erp", "events": ["order.created"]});
    let active = app.post(&o("/webhooks"), t, hook).await.expect(201);
    let a = |rest: &str| o(&format!("/webhooks/{}{rest}", id_of(&active)));
    app.create_order(&org, order_body(&channel_id, "A-3")).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    let logged = loop {
        let log = app.get(&a("/deliveries"), t).await.expect(200);
        if let Some(first) = log["data"].get(0) {
            break first.clone();
        }
        assert!(std::time::Instant::now() < deadline, "no attempt logged");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    app.post(
        &a(&format!("/deliveries/{}/replay", id_of(&logged))),
        t,
        json!({}),
    )
    .await
    .expect(202);

    // Reads and failed writes leave nothing.
    app.get(&o("/shipments"), t).await.expect(200);
    app.post(&o("/shipments"), t, json!({}))
        .await
        .problem(400, "validation_failed");

    let entries = audit(&app, &org).await;
    let logged: BTreeSet<String> = entries
        .iter()
        .map(|e| e["operation"].as_str().unwrap().to_string())
        .collect();
    let writes: BTreeSet<String> = operations::ALL
        .iter()
        .filter(|op| op.kind != Kind::Read)
        .map(|op| op.id.to_string())
        .collect();
    assert_eq!(
        writes.difference(&logged).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "write operations without an audit entry"
    );
    assert!(
        logged
            .iter()
            .all(|op| writes.contains(op) || op == "create_organization"),
        "{logged:?}"
    );
    let owner_token = app.get(&o("/api-tokens?limit=100"), t).await.expect(200)["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tok| tok["name"] == "Owner token")
        .map(id_of)
        .unwrap();
    // The organization and its owner's token were made at the command line.
    let by_cli: Vec<&Value> = entries
        .iter()
        .filter(|e| e["actor"]["type"] == "cli")
        .collect();
    assert_eq!(
        by_cli
            .iter()
            .map(|e| e["operation"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["create_api_token", "create_organization"]
    );
    for entry in entries.iter().filter(|e| e["actor"]["type"] != "cli") {
        assert_eq!(entry["actor"]["type"], "api_token", "{entry}");
        assert_eq!(entry["actor"]["id"], json!(owner_token), "{entry}");
        assert_eq!(entry["actor"]["userId"], json!(org.user_id), "{entry}");
        assert_eq!(entry["clientAddress"], "127.0.0.1", "{entry}");
        assert!(entry["id"].as_str().unwrap().starts_with("aud_"));
        assert_timestamp(&entry["createdAt"]);
    }
    let created = entries
        .iter()
        .find(|e| e["operation"] == "create_shipment" && e["resourceId"] == json!(shipment_id));
    assert!(created.is_some(), "the create names the new shipment");
    let booked = entries
        .iter()
        .filter(|e| e["operation"] == "book_shipment")
        .collect::<Vec<_>>();
    assert_eq!(booked.len(), 1);
    assert_eq!(booked[0]["resourceId"], json!(shipment_id));
    // Newest first.
    let times: Vec<&str> = entries
        .iter()
        .map(|e| e["createdAt"].as_str().unwrap())
        .collect();
    let mut sorted = times.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(times, sorted);
}

#[tokio::test]
async fn an_agents_write_names_its_connection_and_the_cli_is_recorded_too() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let connected = crate::browser::connect(&app, &org, &["write:sender_addresses"]).await;
    let address = app
        .post(
            &format!("/orgs/{}/sender-addresses", org.id),
            connected.access(),
            sender_address_body(),
        )
        .await
        .expect(201);
    let out = app.cli(&[
        "user",
        "add",
        "--org",
        &org.id,
        "--email",
        "cli@example.com",
        "--name",
        "Cli",
    ]);
    assert!(out.status.success());
    let entries = audit(&app, &org).await;
    let by_agent = entries
        .iter()
        .find(|e| e["resourceId"] == json!(id_of(&address)))
        .expect("the agent's write");
    assert_eq!(by_agent["actor"]["type"], "agent_connection");
    assert!(
        by_agent["actor"]["id"]
            .as_str()
            .unwrap()
            .starts_with("con_")
    );
    assert_eq!(by_agent["actor"]["userId"], json!(org.user_id));
    let by_cli = entries
        .iter()
        .find(|e| e["operation"] == "add_member")
        .expect("the command line's write");
    assert_eq!(by_cli["actor"]["type"], "cli");
    assert_eq!(by_cli["clientAddress"], Value::Null);
}
