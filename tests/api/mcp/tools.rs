//! Tools are the REST operations: filtered by the connection's permissions, with the REST
//! API's validation, answers, errors, plan limits and idempotency, in both eras.

use serde_json::json;
use shipbase::model::scope::Resource;

use super::{Mcp, step_up, tool_error, tool_ok};
use crate::{
    browser::connect,
    fixtures::{id_of, shipment_body},
    helpers::TestApp,
};

/// A client of each era for the same token.
async fn both<'a>(app: &'a TestApp, token: &str) -> [Mcp<'a>; 2] {
    let modern = Mcp::new(app, token);
    let mut legacy = Mcp::new(app, token);
    legacy.initialize("2025-11-25").await;
    [modern, legacy]
}

#[tokio::test]
async fn the_tool_list_follows_the_permissions() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let reader = connect(&app, &org, &["read:shipments", "read:orders"]).await;
    for mut mcp in both(&app, reader.access()).await {
        assert_eq!(
            mcp.tool_names().await,
            [
                "list_shipments",
                "get_shipment",
                "get_shipment_document",
                "merge_documents",
                "list_pickups",
                "get_pickup",
                "list_manifests",
                "get_manifest",
                "list_orders",
                "get_order",
                "list_shipment_notifications",
                "track",
                "find"
            ]
        );
    }
    let writes: Vec<String> = Resource::ALL
        .iter()
        .map(|r| format!("write:{}", r.name()))
        .collect();
    let writes: Vec<&str> = writes.iter().map(String::as_str).collect();
    let everything = connect(&app, &org, &writes).await;
    let mut mcp = Mcp::new(&app, everything.access());
    let names = mcp.tool_names().await;
    // One tool per operation, and the two task tools.
    assert_eq!(
        names.len(),
        shipbase::service::operations::ALL.len() + 2,
        "{names:?}"
    );
}

#[tokio::test]
async fn calls_answer_what_rest_answers_and_refuse_what_rest_refuses() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let stranger = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let (foreign_address, foreign_carrier) = app.create_address_and_carrier(&stranger).await;
    let foreign = app
        .post(
            &format!("/orgs/{}/shipments", stranger.id),
            &stranger.token,
            shipment_body(&id_of(&foreign_address), &id_of(&foreign_carrier)),
        )
        .await
        .expect(201);
    let agent = connect(
        &app,
        &org,
        &["read:shipments", "write:shipments", "read:carriers"],
    )
    .await;
    for mut mcp in both(&app, agent.access()).await {
        let created = tool_ok(
            &mcp.call(
                "create_shipment",
                shipment_body(&id_of(&address), &id_of(&carrier)),
            )
            .await,
        );
        let rest = app
            .get(
                &format!("/orgs/{}/shipments/{}", org.id, id_of(&created)),
                &org.token,
            )
            .await
            .expect(200);
        assert_eq!(created, rest);
        assert_eq!(
            tool_ok(
                &mcp.call("get_shipment", json!({"shipmentId": id_of(&created)}))
                    .await
            ),
            rest
        );

        assert_eq!(
            tool_error(
                &mcp.call("get_shipment", json!({"shipmentId": id_of(&foreign)}))
                    .await
            ),
            "not_found"
        );
        assert_eq!(
            step_up(&mcp.call("get_organization", json!({})).await),
            "read:orgs"
        );
        let mut typo = shipment_body(&id_of(&address), &id_of(&carrier));
        typo["parties"][0]["adress2"] = json!("x");
        let answer = mcp.call("create_shipment", typo).await;
        assert_eq!(tool_error(&answer), "validation_failed");
        assert_eq!(
            answer.result()["structuredContent"]["errors"][0]["field"],
            "parties[0].adress2"
        );
        let answer = mcp
            .call("get_shipment", json!({"shipmentID": "shp_x"}))
            .await;
        assert_eq!(tool_error(&answer), "validation_failed");
        let fields: Vec<_> = answer.result()["structuredContent"]["errors"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| {
                (
                    e["field"].as_str().unwrap_or_default().to_string(),
                    e["message"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        assert!(
            fields.contains(&("shipmentId".into(), "is required".into())),
            "{fields:?}"
        );
        assert!(
            fields.contains(&(
                "shipmentID".into(),
                "unknown argument; did you mean \"shipmentId\"?".into()
            )),
            "{fields:?}"
        );
        let unknown = mcp.call("fly_away", json!({})).await;
        assert_eq!((unknown.status, unknown.code()), (200, -32602));
        let listed = tool_ok(
            &mcp.call("list_shipments", json!({"limit": 1, "page": 1}))
                .await,
        );
        assert_eq!(listed["limit"], 1);
        let bad_limit = mcp.call("list_shipments", json!({"limit": 0})).await;
        assert_eq!(tool_error(&bad_limit), "validation_failed");
    }
    let count = app
        .get(&format!("/orgs/{}/shipments", org.id), &org.token)
        .await
        .expect(200);
    assert_eq!(count["total"], 2);
}

#[tokio::test]
async fn an_idempotency_key_makes_a_retried_call_safe() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let agent = connect(&app, &org, &["read:shipments", "write:shipments"]).await;
    for (n, mut mcp) in both(&app, agent.access()).await.into_iter().enumerate() {
        let mut body = shipment_body(&id_of(&address), &id_of(&carrier));
        body["idempotencyKey"] = json!(format!("retry-{n}"));
        let first = tool_ok(&mcp.call("create_shipment", body.clone()).await);
        let again = tool_ok(&mcp.call("create_shipment", body.clone()).await);
        assert_eq!(first, again);
        body["reference"] = json!("OTHER");
        assert_eq!(
            tool_error(&mcp.call("create_shipment", body).await),
            "idempotency_key_reused"
        );
        let wrong = mcp
            .call(
                "get_shipment",
                json!({"shipmentId": id_of(&first), "idempotencyKey": "k"}),
            )
            .await;
        assert_eq!(tool_error(&wrong), "validation_failed");
    }
    let list = app
        .get(&format!("/orgs/{}/shipments", org.id), &org.token)
        .await
        .expect(200);
    assert_eq!(list["total"], 2);
}

#[tokio::test]
async fn plan_limits_refuse_agent_calls_like_rest() {
    let app = TestApp::spawn_with("[plans.default]\nsender_addresses = 1").await;
    let org = app.create_org();
    app.create_address_and_carrier(&org).await;
    let agent = connect(&app, &org, &["write:sender_addresses"]).await;
    for mut mcp in both(&app, agent.access()).await {
        let body = crate::fixtures::sender_address_body();
        assert_eq!(
            tool_error(&mcp.call("create_sender_address", body).await),
            "plan_limit_reached"
        );
    }
}

#[tokio::test]
async fn documents_come_as_resource_links_read_through_resources_read() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let stranger = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let mut body = shipment_body(&id_of(&address), &id_of(&carrier));
    body["parcels"] = json!([{"weight": 1.5}, {"weight": 2.0}]);
    let agent = connect(&app, &org, &["read:shipments", "write:shipments"]).await;
    for mut mcp in both(&app, agent.access()).await {
        let created = tool_ok(&mcp.call("create_shipment", body.clone()).await);
        let booked = mcp
            .call("book_shipment", json!({"shipmentId": id_of(&created)}))
            .await;
        // Two labels, no bytes: the answer stays small.
        assert!(booked.text.len() < 8 * 1024, "{} bytes", booked.text.len());
        let result = booked.result();
        let documents = result["structuredContent"]["documents"]
            .as_array()
            .expect("documents")
            .clone();
        assert_eq!(documents.len(), 2, "{}", booked.text);
        let links: Vec<_> = result["content"]
            .as_array()
            .expect("content")
            .iter()
            .filter(|c| c["type"] == "resource_link")
            .cloned()
            .collect();
        assert_eq!(links.len(), 2, "{}", booked.text);
        for (document, link) in documents.iter().zip(&links) {
            assert!(document.get("content").is_none(), "{document}");
            let uri = format!("shipbase://orgs/{}/documents/{}", org.id, id_of(document));
            assert_eq!(document["resourceUri"], uri.as_str());
            assert_eq!(link["uri"], uri.as_str());
            assert_eq!(link["mimeType"], "application/pdf");
        }

        // The file, when it is wanted.
        let uri = links[0]["uri"].as_str().unwrap_or_default().to_string();
        let read = if mcp.session.is_some() {
            mcp.legacy("resources/read", json!({"uri": uri})).await
        } else {
            mcp.modern("resources/read", json!({"uri": uri})).await
        };
        let contents = &read.result()["contents"][0];
        assert_eq!(contents["uri"], uri.as_str(), "{}", read.text);
        assert_eq!(contents["mimeType"], "application/pdf");
        use base64::Engine;
        let pdf = base64::engine::general_purpose::STANDARD
            .decode(contents["blob"].as_str().unwrap_or_default())
            .expect("base64");
        assert!(pdf.starts_with(b"%PDF"));

        // get_shipment_document links to the same resource instead of inlining it.
        let answer = mcp
            .call(
                "get_shipment_document",
                json!({"shipmentId": id_of(&created), "documentId": id_of(&documents[0])}),
            )
            .await;
        let result = answer.result();
        assert!(!answer.text.contains("JVBER"), "{}", answer.text);
        assert_eq!(result["structuredContent"]["resourceUri"], uri.as_str());
        assert_eq!(
            result["structuredContent"]["contentType"],
            "application/pdf"
        );
        assert_eq!(result["content"][1]["type"], "resource_link");

        // Another organization's document, or no document at all, is not found.
        let foreign = format!(
            "shipbase://orgs/{}/documents/{}",
            stranger.id,
            id_of(&documents[0])
        );
        for missing in [
            foreign,
            format!("shipbase://orgs/{}/documents/doc_nope", org.id),
        ] {
            let read = if mcp.session.is_some() {
                mcp.legacy("resources/read", json!({"uri": missing})).await
            } else {
                mcp.modern("resources/read", json!({"uri": missing})).await
            };
            assert_eq!(read.code(), -32602, "{}", read.text);
            assert_eq!(read.body["error"]["data"]["uri"], missing.as_str());
        }
    }
}

#[tokio::test]
async fn printers_and_booking_documents_work_through_tools_with_the_rest_checks() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let reader = connect(&app, &org, &["read:printers"]).await;
    let writer = connect(
        &app,
        &org,
        &["write:printers", "write:shipments", "read:shipments"],
    )
    .await;
    let printer =
        json!({"name": "Desk", "kind": "raw", "address": "10.0.0.5:9100", "format": "zpl"});
    for mut mcp in both(&app, reader.access()).await {
        assert_eq!(
            step_up(&mcp.call("create_printer", printer.clone()).await),
            "write:printers"
        );
    }
    for mut mcp in both(&app, writer.access()).await {
        let created = tool_ok(&mcp.call("create_printer", printer.clone()).await);
        assert!(
            created["id"]
                .as_str()
                .unwrap_or_default()
                .starts_with("prn_")
        );
        let mut bad = printer.clone();
        bad["kind"] = json!("fax");
        assert_eq!(
            tool_error(&mcp.call("create_printer", bad).await),
            "validation_failed"
        );
        let jobs = tool_ok(
            &mcp.call("list_print_jobs", json!({"printerId": id_of(&created)}))
                .await,
        );
        assert_eq!(jobs["total"], 0);

        let shipment = tool_ok(
            &mcp.call(
                "create_shipment",
                shipment_body(&id_of(&address), &id_of(&carrier)),
            )
            .await,
        );
        let booked = tool_ok(
            &mcp.call(
                "book_shipment",
                json!({"shipmentId": id_of(&shipment), "documents": ["packing_list"]}),
            )
            .await,
        );
        let types: Vec<_> = booked["documents"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|d| d["documentType"].clone())
            .collect();
        assert_eq!(types, [json!("label"), json!("packing_list")]);
    }
    let listed = app
        .get(&format!("/orgs/{}/printers", org.id), &org.token)
        .await
        .expect(200);
    assert_eq!(listed["total"], 2);
}

#[tokio::test]
async fn signing_secrets_never_reach_a_model() {
    let app = TestApp::spawn_with("[webhooks]\nallow_private_targets = true\n").await;
    let org = app.create_org();
    let agent = connect(&app, &org, &["write:webhooks", "write:order_channels"]).await;
    for mut mcp in both(&app, agent.access()).await {
        let made = mcp
            .call(
                "create_webhook",
                json!({"name": "hook", "url": "http://127.0.0.1:9/hook", "events": ["order.created"]}),
            )
            .await;
        let webhook = tool_ok(&made);
        assert!(webhook["id"].is_string(), "{}", made.text);
        assert!(!made.text.contains("whsec_"), "{}", made.text);
        let id = id_of(&webhook);
        for (tool, args) in [
            ("get_webhook", json!({"webhookId": id})),
            ("list_webhooks", json!({})),
        ] {
            let answer = mcp.call(tool, args).await;
            let found = tool_ok(&answer);
            assert!(found.is_object(), "{tool}: {}", answer.text);
            assert!(!answer.text.contains("whsec_"), "{tool}: {}", answer.text);
            assert!(
                !answer.text.contains("\"secret\""),
                "{tool}: {}",
                answer.text
            );
        }
        // The REST API, for the people who configure receivers, still has it.
        let rest = app
            .get(&format!("/orgs/{}/webhooks/{id}", org.id), &org.token)
            .await
            .expect(200);
        assert!(
            rest["secret"]
                .as_str()
                .unwrap_or_default()
                .starts_with("whsec_"),
            "{rest}"
        );
    }
}

#[tokio::test]
async fn a_call_outside_the_grant_is_a_step_up_and_passes_once_the_grant_is_wider() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let narrow = connect(&app, &org, &["read:shipments"]).await;
    for mut mcp in both(&app, narrow.access()).await {
        let refused = mcp.call("list_carriers", json!({})).await;
        assert_eq!(step_up(&refused), "read:carriers");
    }
    // The person approves the wider grant; the same call passes.
    let wider = connect(&app, &org, &["read:shipments", "read:carriers"]).await;
    for mut mcp in both(&app, wider.access()).await {
        let listed = mcp.call("list_carriers", json!({})).await;
        assert_eq!(listed.status, 200, "{}", listed.text);
        assert!(
            listed.result()["structuredContent"].is_object(),
            "{}",
            listed.text
        );
    }
}

#[tokio::test]
async fn toolsets_narrow_the_tool_list() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let agent = connect(
        &app,
        &org,
        &["write:shipments", "write:orders", "write:carriers"],
    )
    .await;
    for mut mcp in both(&app, agent.access()).await {
        let all = mcp.tool_names().await;
        mcp.path = "/mcp?toolsets=orders".into();
        let orders = mcp.tool_names().await;
        assert!(!orders.is_empty() && orders.len() < all.len(), "{orders:?}");
        assert!(
            orders.iter().all(|n| n.contains("order") || n == "find"),
            "{orders:?}"
        );
        mcp.path = "/mcp?toolsets=orders,carriers".into();
        let two = mcp.tool_names().await;
        assert!(two.contains(&"list_carriers".to_string()) && two.len() > orders.len());
        // A tool outside the toolsets can still be called.
        let listed = mcp.call("list_shipments", json!({})).await;
        assert_eq!(listed.status, 200, "{}", listed.text);
        mcp.path = "/mcp?toolsets=parcels".into();
        let answer = if mcp.session.is_some() {
            mcp.legacy("tools/list", json!({})).await
        } else {
            mcp.modern("tools/list", json!({})).await
        };
        assert_eq!(answer.status, 400, "{}", answer.text);
        assert!(
            answer.text.contains("toolsets: orgs, shipments"),
            "{}",
            answer.text
        );
    }
}

#[tokio::test]
async fn track_and_find_answer_in_one_small_call() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let mut body = shipment_body(&id_of(&address), &id_of(&carrier));
    body["reference"] = json!("ORDER-7001");
    body["parcels"] = json!([{"weight": 1.0}, {"weight": 2.0}]);
    let shipment = app
        .post(&format!("/orgs/{}/shipments", org.id), &org.token, body)
        .await
        .expect(201);
    let booked = app
        .post(
            &format!("/orgs/{}/shipments/{}/book", org.id, id_of(&shipment)),
            &org.token,
            json!({}),
        )
        .await
        .expect(200);
    let number = booked["parcels"][1]["trackingNumber"]
        .as_str()
        .expect("a tracking number")
        .to_string();
    let agent = connect(&app, &org, &["read:shipments"]).await;
    for mut mcp in both(&app, agent.access()).await {
        for query in [number.as_str(), "ORDER-7001"] {
            let answer = mcp.call("track", json!({"query": query})).await;
            let found = &answer.result()["structuredContent"];
            assert_eq!(
                found["shipments"][0]["id"],
                id_of(&shipment),
                "{query}: {}",
                answer.text
            );
            assert_eq!(
                found["shipments"][0]["status"], booked["status"],
                "{}",
                answer.text
            );
            assert_eq!(
                found["shipments"][0]["parcels"][1]["trackingNumber"],
                number.as_str()
            );
            assert!(answer.text.len() < 4096, "{} bytes", answer.text.len());
        }
        let none = mcp.call("track", json!({"query": "NOTHING-LIKE-IT"})).await;
        assert_eq!(none.result()["structuredContent"]["shipments"], json!([]));
        let found = mcp.call("find", json!({"query": "ORDER-7001"})).await;
        let structured = &found.result()["structuredContent"];
        assert_eq!(
            structured["shipments"][0]["reference"], "ORDER-7001",
            "{}",
            found.text
        );
        // Orders are not in this grant: left out, not refused.
        assert!(structured.get("orders").is_none(), "{}", found.text);
        let typo = mcp.call("track", json!({"qeury": "x"})).await;
        assert_eq!(tool_error(&typo), "validation_failed");
    }
    let orders_only = connect(&app, &org, &["read:orders"]).await;
    let mut mcp = Mcp::new(&app, orders_only.access());
    assert_eq!(
        step_up(&mcp.call("track", json!({"query": "x"})).await),
        "read:shipments"
    );
}
