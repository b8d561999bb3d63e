//! Walks every org-scoped operation of /openapi.json against real resources of a victim
//! organization, so that a route added later without its checks fails here:
//! (a) no credential → 401, (b) another organization's token → 404, also with a malformed query
//! string and a malformed body (the foreign caller learns nothing, in the order 401 → 404 → 403
//! → 400), (c) a token holding every scope except the one the operations table names → 403.
//! Nothing of the victim changes.

use std::collections::BTreeMap;

use reqwest::Method;
use serde_json::{Value, json};
use shipbase::{model::scope::Scope, service::operations};

use crate::{
    fixtures::{id_of, order_body, order_channel_body, parcels_of, shipment_body},
    helpers::{TestApp, TestOrg},
};

struct Route {
    method: Method,
    template: String,
    operation_id: String,
    scope: Scope,
    has_body: bool,
    has_page: bool,
}

fn org_routes(document: &Value) -> Vec<Route> {
    let mut routes = Vec::new();
    for (template, item) in document["paths"].as_object().into_iter().flatten() {
        if !template.starts_with("/orgs/{orgId}") {
            continue;
        }
        for (method, op) in item.as_object().into_iter().flatten() {
            let operation_id = op["operationId"].as_str().unwrap_or_default().to_string();
            let entry = operations::find(&operation_id).unwrap_or_else(|| {
                panic!("{method} {template} ({operation_id}) is not in the operations table")
            });
            let has_page = op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|p| p["name"] == "limit");
            routes.push(Route {
                method: method.to_uppercase().parse().expect("method"),
                template: template.clone(),
                operation_id,
                scope: entry.scope,
                has_body: op.get("requestBody").is_some(),
                has_page,
            });
        }
    }
    routes
}

/// Real resources of `org`, one per path parameter name.
async fn victim_resources(app: &TestApp, org: &TestOrg) -> BTreeMap<&'static str, String> {
    let (address, carrier) = app.create_address_and_carrier(org).await;
    let (address_id, carrier_id) = (id_of(&address), id_of(&carrier));
    let rule = app
        .create_rule(org, crate::fixtures::rule_body(&carrier_id, &address_id))
        .await;
    let shipment = app
        .create_shipment(org, shipment_body(&address_id, &carrier_id))
        .await;
    let shipment_id = id_of(&shipment);
    let parcel_id = id_of(&parcels_of(&shipment)[0]);
    let booked = app
        .create_shipment(org, shipment_body(&address_id, &carrier_id))
        .await;
    let booked = app.book_shipment(org, &id_of(&booked)).await;
    let document_id = id_of(&booked["documents"][0]);
    let channel = app
        .create_order_channel(org, order_channel_body("manual"))
        .await;
    let order = app
        .create_order(org, order_body(&id_of(&channel), "ISO-1"))
        .await;
    let (_, token) = app
        .create_api_token(org, json!({"name": "victim's", "scopes": ["read:all"]}))
        .await;
    let webhook = app
        .post(
            &format!("/orgs/{}/webhooks", org.id),
            &org.token,
            json!({"name": "victim's", "url": "http://127.0.0.1:9/hook", "events": ["order.created"], "isActive": false}),
        )
        .await
        .expect(201);
    // A logged delivery (a test send: nothing listens there).
    let delivery = app
        .post(
            &format!("/orgs/{}/webhooks/{}/test", org.id, id_of(&webhook)),
            &org.token,
            json!({}),
        )
        .await
        .expect(200);
    let printer = app
        .post(
            &format!("/orgs/{}/printers", org.id),
            &org.token,
            json!({"name": "victim's", "kind": "raw", "address": "10.0.0.1:9100", "format": "pdf"}),
        )
        .await
        .expect(201);
    let pickup = app
        .post(
            &format!("/orgs/{}/pickups", org.id),
            &org.token,
            json!({"carrierId": carrier_id, "date": "2031-03-04", "readyFrom": "09:00",
                   "readyUntil": "16:00", "senderAddressId": address_id,
                   "shipmentIds": [id_of(&booked)]}),
        )
        .await
        .expect(201);
    let manifest = app
        .post(
            &format!("/orgs/{}/manifests", org.id),
            &org.token,
            json!({"carrierId": carrier_id}),
        )
        .await
        .expect(201);
    let member = app.cli_json(&[
        "user",
        "add",
        "--org",
        &org.id,
        "--email",
        &format!("member-{}@example.com", org.slug),
        "--name",
        "Victim's member",
        "--json",
    ]);
    app.put(
        &format!("/orgs/{}/branding", org.id),
        &org.token,
        json!({"displayName": "Victim's", "logo": crate::branding::PNG}),
    )
    .await
    .expect(200);
    BTreeMap::from([
        ("{userId}", id_of(&member)),
        ("{addressId}", address_id),
        ("{carrierId}", carrier_id),
        ("{ruleId}", id_of(&rule)),
        ("{shipmentId}", id_of(&booked)),
        ("{documentId}", document_id),
        ("{channelId}", id_of(&channel)),
        ("{orderId}", id_of(&order)),
        ("{tokenId}", id_of(&token)),
        ("{webhookId}", id_of(&webhook)),
        ("{deliveryId}", id_of(&delivery)),
        ("{printerId}", id_of(&printer)),
        ("{pickupId}", id_of(&pickup)),
        ("{manifestId}", id_of(&manifest)),
        // The parcel of the unbooked shipment; split routes take it with that shipment.
        ("{parcelId}", parcel_id),
        ("{unbookedShipmentId}", shipment_id),
    ])
}

fn path_for(route: &Route, org_id: &str, ids: &BTreeMap<&'static str, String>) -> String {
    let split = route.template.contains("{parcelId}");
    route
        .template
        .split('/')
        .map(|segment| match segment {
            "{orgId}" => org_id.to_string(),
            "{shipmentId}" if split => ids["{unbookedShipmentId}"].clone(),
            s if s.starts_with('{') => ids
                .get(s)
                .unwrap_or_else(|| panic!("no victim resource for {s} in {}", route.template))
                .clone(),
            s => s.to_string(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[tokio::test]
async fn every_org_route_checks_credential_organization_and_scope() {
    let app = TestApp::spawn_with("[webhooks]\nallow_private_targets = true").await;
    let victim = app.create_org();
    let attacker = app.create_org();
    let ids = victim_resources(&app, &victim).await;
    let document = app
        .call(Method::GET, "/openapi.json", None, None)
        .await
        .expect(200);
    let routes = org_routes(&document);
    assert!(
        routes.len() >= 40,
        "only {} org routes documented",
        routes.len()
    );
    let before = snapshot(&app, &victim, &ids).await;

    for route in &routes {
        let path = path_for(route, &victim.id, &ids);
        let body = route.has_body.then(|| json!({}));
        let name = format!(
            "{} {} ({})",
            route.method, route.template, route.operation_id
        );

        let anonymous = app
            .call(route.method.clone(), &path, None, body.clone())
            .await;
        assert_eq!(
            anonymous.status, 401,
            "{name} without a credential: {}",
            anonymous.text
        );
        anonymous.problem(401, "unauthenticated");

        let foreign = app
            .call(
                route.method.clone(),
                &path,
                Some(&attacker.token),
                body.clone(),
            )
            .await;
        assert_eq!(
            foreign.status, 404,
            "{name} with another org's token: {}",
            foreign.text
        );
        foreign.problem(404, "not_found");

        // A malformed query string and body change nothing for a foreign caller: still 404.
        let bad_query = format!("{path}?page=abc&limit=0&status=lost&createdFrom=yesterday");
        let bad_body = route.has_body.then(|| json!({"unknown": [1, 2, 3]}));
        let foreign = app
            .call(
                route.method.clone(),
                &bad_query,
                Some(&attacker.token),
                bad_body.clone(),
            )
            .await;
        assert_eq!(
            foreign.status, 404,
            "{name} with another org's token and a bad query: {}",
            foreign.text
        );
        foreign.problem(404, "not_found");

        let others: Vec<String> = Scope::catalogue()
            .into_iter()
            .filter(|s| !s.grants(route.scope))
            .map(|s| s.to_string())
            .collect();
        let token = app
            .post(
                &format!("/orgs/{}/api-tokens", victim.id),
                &victim.token,
                json!({"name": "all but one", "scopes": others}),
            )
            .await
            .expect(201)["token"]
            .as_str()
            .expect("token")
            .to_string();
        let scoped = app
            .call(route.method.clone(), &bad_query, Some(&token), bad_body)
            .await;
        assert_eq!(
            scoped.status, 403,
            "{name} without {}: {}",
            route.scope, scoped.text
        );
        let header = scoped.header("www-authenticate");
        assert!(
            header.contains(&format!("scope=\"{}\"", route.scope)),
            "{name}: {header}"
        );
        scoped.problem(403, "insufficient_scope");

        if route.has_page {
            let own = app.get(&bad_query, &victim.token).await;
            own.problem(400, "validation_failed");
        }
    }
    assert_eq!(
        snapshot(&app, &victim, &ids).await,
        before,
        "the victim's data changed"
    );
}

/// What the victim has, read with its own token.
async fn snapshot(app: &TestApp, org: &TestOrg, ids: &BTreeMap<&'static str, String>) -> Value {
    let mut seen = serde_json::Map::new();
    for path in [
        format!("/orgs/{}", org.id),
        format!("/orgs/{}/branding", org.id),
        format!("/orgs/{}/sender-addresses", org.id),
        format!("/orgs/{}/carriers", org.id),
        format!("/orgs/{}/shipping-rules", org.id),
        format!("/orgs/{}/shipments", org.id),
        format!("/orgs/{}/shipments/{}", org.id, ids["{shipmentId}"]),
        format!("/orgs/{}/shipments/{}", org.id, ids["{unbookedShipmentId}"]),
        format!("/orgs/{}/order-channels", org.id),
        format!("/orgs/{}/orders", org.id),
        format!("/orgs/{}/pickups", org.id),
        format!("/orgs/{}/manifests", org.id),
        format!("/orgs/{}/members", org.id),
        format!("/orgs/{}/webhooks/{}", org.id, ids["{webhookId}"]),
        format!(
            "/orgs/{}/webhooks/{}/deliveries",
            org.id, ids["{webhookId}"]
        ),
    ] {
        seen.insert(path.clone(), app.get(&path, &org.token).await.expect(200));
    }
    let tokens = app
        .get(
            &format!("/orgs/{}/api-tokens?limit=100", org.id),
            &org.token,
        )
        .await
        .expect(200);
    // Tokens are added by the walk itself; the victim's own must all still be there.
    let ids: Vec<Value> = tokens["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["name"] != "all but one")
        .map(|t| json!([t["id"], t["name"]]))
        .collect();
    seen.insert("api-tokens".into(), Value::Array(ids));
    Value::Object(seen)
}

#[tokio::test]
async fn the_operations_table_and_the_document_name_the_same_operations() {
    let app = TestApp::spawn().await;
    let document = app
        .call(Method::GET, "/openapi.json", None, None)
        .await
        .expect(200);
    let mut documented: Vec<String> = org_routes(&document)
        .into_iter()
        .map(|r| r.operation_id)
        .collect();
    documented.sort();
    let mut table: Vec<String> = operations::ALL.iter().map(|op| op.id.to_string()).collect();
    table.sort();
    assert_eq!(documented, table);
}
