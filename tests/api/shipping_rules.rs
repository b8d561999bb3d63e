//! Shipping rules: /orgs/{orgId}/shipping-rules (SPEC §2 ShippingRule, row 9, DESIGN §16).

use serde_json::{Value, json};

use crate::{
    fixtures::{
        assert_id, assert_invalid, assert_list_total, assert_timestamp, id_of, page_ids, rule_body,
        with, without,
    },
    helpers::{TestApp, TestOrg},
};

const BOOLEANS: [&str; 8] = [
    "emailNotification",
    "phoneNotification",
    "generateProformaInvoice",
    "generateCommercialInvoice",
    "generatePackingList",
    "autoPrintLabels",
    "autoPrintDocuments",
    "autoCreateReturnShipment",
];

/// An org with a sender address and a sandbox carrier: `(address, carrier)`.
async fn setup(app: &TestApp, org: &TestOrg) -> (Value, Value) {
    app.create_address_and_carrier(org).await
}

fn rules_path(org: &TestOrg) -> String {
    format!("/orgs/{}/shipping-rules", org.id)
}

fn rule_path(org: &TestOrg, rule: &Value) -> String {
    format!("/orgs/{}/shipping-rules/{}", org.id, id_of(rule))
}

#[tokio::test]
async fn creating_a_shipping_rule_returns_201_in_full_form() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = setup(&app, &org).await;
    let body = json!({
        "name": "Express EU",
        "description": "Fast lane",
        "carrierId": id_of(&carrier),
        "productId": "express",
        "services": ["signature", "insurance"],
        "additionalParameters": [{"name": "labelText", "val": "Fragile"}],
        "senderAddressId": id_of(&address),
        "receivingCountries": ["DE", "SE"],
        "emailNotification": true,
        "conditions": [
            {"type": "weight", "min": 0, "max": 5, "shippingPrice": 49.0, "currency": "DKK"},
            {"type": "price", "operator": "gte", "value": 50000, "shippingPrice": 0, "currency": "DKK"}
        ],
        "autoCreateReturnShipment": true
    });
    let rule = app
        .post(&rules_path(&org), &org.token, body.clone())
        .await
        .expect(201);
    assert_id(&rule["id"], "rul");
    assert_eq!(rule["orgId"], org.id);
    assert_timestamp(&rule["createdAt"]);
    assert_timestamp(&rule["updatedAt"]);
    for key in [
        "name",
        "description",
        "carrierId",
        "productId",
        "services",
        "additionalParameters",
        "senderAddressId",
        "receivingCountries",
    ] {
        assert_eq!(rule[key], body[key], "{key}");
    }
    assert_eq!(rule["emailNotification"], true);
    assert_eq!(rule["autoCreateReturnShipment"], true);
    let conditions = rule["conditions"].as_array().cloned().unwrap_or_default();
    assert_eq!(conditions.len(), 2, "{rule}");
    assert_eq!(conditions[0]["type"], "weight");
    assert_eq!(conditions[0]["max"], 5.0);
    assert_eq!(conditions[0]["shippingPrice"], 49.0);
    assert_eq!(conditions[1]["operator"], "gte");
    assert_eq!(conditions[1]["value"], 50000.0);
    let embedded = rule["carrier"]
        .as_object()
        .unwrap_or_else(|| panic!("no carrier object in {rule}"));
    assert_eq!(embedded["id"], carrier["id"]);
    assert_eq!(embedded["carrierSlug"], "sandbox");
    assert!(
        !embedded.contains_key("senderAddress"),
        "the embedded carrier carries no senderAddress: {rule}"
    );
    assert_eq!(rule["senderAddress"], address);
    assert!(rule["returnShippingRule"].is_null(), "{rule}");
    assert!(rule["returnShippingRuleId"].is_null(), "{rule}");
}

#[tokio::test]
async fn a_shipping_rule_with_a_return_rule_embeds_its_id_and_name() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = setup(&app, &org).await;
    let returns = app
        .create_rule(
            &org,
            with(
                rule_body(&id_of(&carrier), &id_of(&address)),
                "name",
                json!("Returns"),
            ),
        )
        .await;
    let body = with(
        rule_body(&id_of(&carrier), &id_of(&address)),
        "returnShippingRuleId",
        returns["id"].clone(),
    );
    let rule = app.create_rule(&org, body).await;
    assert_eq!(rule["returnShippingRuleId"], returns["id"]);
    assert_eq!(
        rule["returnShippingRule"],
        json!({"id": returns["id"], "name": "Returns"})
    );
}

#[tokio::test]
async fn omitted_shipping_rule_booleans_and_arrays_take_their_defaults() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = setup(&app, &org).await;
    let rule = app
        .create_rule(&org, rule_body(&id_of(&carrier), &id_of(&address)))
        .await;
    for key in BOOLEANS {
        assert_eq!(rule[key], false, "{key}: {rule}");
    }
    for key in [
        "services",
        "additionalParameters",
        "receivingCountries",
        "conditions",
    ] {
        assert_eq!(rule[key], json!([]), "{key}: {rule}");
    }
}

#[tokio::test]
async fn getting_a_shipping_rule_returns_what_was_created() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = setup(&app, &org).await;
    let rule = app
        .create_rule(&org, rule_body(&id_of(&carrier), &id_of(&address)))
        .await;
    let got = app
        .get(&rule_path(&org, &rule), &org.token)
        .await
        .expect(200);
    assert_eq!(got, rule);
}

#[tokio::test]
async fn shipping_rules_are_listed_newest_first_in_full_form() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = setup(&app, &org).await;
    let first = app
        .create_rule(&org, rule_body(&id_of(&carrier), &id_of(&address)))
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let second = app
        .create_rule(&org, rule_body(&id_of(&carrier), &id_of(&address)))
        .await;
    let list = app.get(&rules_path(&org), &org.token).await.expect(200);
    assert_eq!(list["total"], 2);
    assert_eq!(list["totalPages"], 1);
    assert_eq!(page_ids(&list), [id_of(&second), id_of(&first)]);
    assert_eq!(list["data"][1], first);
}

#[tokio::test]
async fn putting_a_shipping_rule_replaces_it() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = setup(&app, &org).await;
    let rule = app
        .create_rule(
            &org,
            with(
                rule_body(&id_of(&carrier), &id_of(&address)),
                "services",
                json!(["signature"]),
            ),
        )
        .await;
    let replacement = json!({
        "name": "Economy",
        "carrierId": id_of(&carrier),
        "productId": "economy",
        "senderAddressId": id_of(&address),
        "phoneNotification": true
    });
    let path = rule_path(&org, &rule);
    let updated = app.put(&path, &org.token, replacement).await.expect(200);
    assert_eq!(updated["id"], rule["id"]);
    assert_eq!(updated["name"], "Economy");
    assert_eq!(updated["productId"], "economy");
    assert_eq!(updated["phoneNotification"], true);
    assert_eq!(updated["services"], json!([]), "services are replaced");
    assert_eq!(updated["createdAt"], rule["createdAt"]);
    assert_eq!(app.get(&path, &org.token).await.expect(200), updated);
}

#[tokio::test]
async fn deleting_a_shipping_rule_answers_a_message_then_it_is_404() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = setup(&app, &org).await;
    let rule = app
        .create_rule(&org, rule_body(&id_of(&carrier), &id_of(&address)))
        .await;
    let path = rule_path(&org, &rule);
    let body = app.delete(&path, &org.token).await.expect(200);
    assert!(body["message"].is_string(), "{body}");
    app.get(&path, &org.token).await.problem(404, "not_found");
    app.delete(&path, &org.token)
        .await
        .problem(404, "not_found");
}

#[tokio::test]
async fn a_shipping_rule_referring_to_another_orgs_or_unknown_objects_is_400_naming_the_field() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let other = app.create_org();
    let (address, carrier) = setup(&app, &org).await;
    let (foreign_address, foreign_carrier) = setup(&app, &other).await;
    let foreign_rule = app
        .create_rule(
            &other,
            rule_body(&id_of(&foreign_carrier), &id_of(&foreign_address)),
        )
        .await;
    let valid = rule_body(&id_of(&carrier), &id_of(&address));
    let cases = [
        ("carrierId", foreign_carrier["id"].clone()),
        ("carrierId", json!("car_01ARZ3NDEKTSV4RRFFQ69G5FAV")),
        ("senderAddressId", foreign_address["id"].clone()),
        ("senderAddressId", json!("adr_01ARZ3NDEKTSV4RRFFQ69G5FAV")),
        ("returnShippingRuleId", foreign_rule["id"].clone()),
        (
            "returnShippingRuleId",
            json!("rul_01ARZ3NDEKTSV4RRFFQ69G5FAV"),
        ),
    ];
    for (field, value) in cases {
        let reply = app
            .post(
                &rules_path(&org),
                &org.token,
                with(valid.clone(), field, value),
            )
            .await;
        assert_invalid(reply, field);
    }
    assert_list_total(&app, &rules_path(&org), &org.token, 0).await;
}

#[tokio::test]
async fn a_shipping_rule_cannot_be_its_own_return_rule() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = setup(&app, &org).await;
    let rule = app
        .create_rule(&org, rule_body(&id_of(&carrier), &id_of(&address)))
        .await;
    let path = rule_path(&org, &rule);
    let body = with(
        rule_body(&id_of(&carrier), &id_of(&address)),
        "returnShippingRuleId",
        rule["id"].clone(),
    );
    assert_invalid(
        app.put(&path, &org.token, body).await,
        "returnShippingRuleId",
    );
    assert_eq!(app.get(&path, &org.token).await.expect(200), rule);
}

#[tokio::test]
async fn deleting_a_shipping_rule_used_as_a_return_rule_is_409() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = setup(&app, &org).await;
    let returns = app
        .create_rule(&org, rule_body(&id_of(&carrier), &id_of(&address)))
        .await;
    let outbound = app
        .create_rule(
            &org,
            with(
                rule_body(&id_of(&carrier), &id_of(&address)),
                "returnShippingRuleId",
                returns["id"].clone(),
            ),
        )
        .await;
    let returns_path = rule_path(&org, &returns);
    app.delete(&returns_path, &org.token)
        .await
        .problem(409, "conflict");
    assert_eq!(
        app.get(&returns_path, &org.token).await.expect(200),
        returns
    );
    app.delete(&rule_path(&org, &outbound), &org.token)
        .await
        .expect(200);
    app.delete(&returns_path, &org.token).await.expect(200);
}

#[tokio::test]
async fn invalid_shipping_rule_conditions_and_countries_are_400_naming_the_field() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = setup(&app, &org).await;
    let valid = rule_body(&id_of(&carrier), &id_of(&address));
    let condition = |c: Value| with(valid.clone(), "conditions", json!([c]));
    let cases = [
        (
            "conditions[0].type",
            condition(json!({"type": "volume", "shippingPrice": 10, "currency": "DKK"})),
        ),
        (
            "conditions[0].operator",
            condition(
                json!({"type": "price", "value": 100, "shippingPrice": 10, "currency": "DKK"}),
            ),
        ),
        (
            "conditions[0].value",
            condition(
                json!({"type": "price", "operator": "gt", "shippingPrice": 10, "currency": "DKK"}),
            ),
        ),
        (
            "conditions[0].shippingPrice",
            condition(json!({"type": "flatRate", "shippingPrice": -1, "currency": "DKK"})),
        ),
        (
            "conditions[0].currency",
            condition(json!({"type": "flatRate", "shippingPrice": 10, "currency": "dkk"})),
        ),
        (
            "conditions[0].currency",
            condition(json!({"type": "flatRate", "shippingPrice": 10, "currency": "DKKR"})),
        ),
        (
            "receivingCountries[1]",
            with(valid.clone(), "receivingCountries", json!(["DK", "DNK"])),
        ),
        (
            "receivingCountries[0]",
            with(valid.clone(), "receivingCountries", json!(["dk"])),
        ),
    ];
    for (field, body) in cases {
        let reply = app.post(&rules_path(&org), &org.token, body).await;
        assert_invalid(reply, field);
    }
    assert_list_total(&app, &rules_path(&org), &org.token, 0).await;
}

#[tokio::test]
async fn a_shipping_rule_without_a_required_field_is_400_naming_it() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = setup(&app, &org).await;
    for field in ["name", "carrierId", "productId", "senderAddressId"] {
        let body = without(rule_body(&id_of(&carrier), &id_of(&address)), field);
        assert_invalid(app.post(&rules_path(&org), &org.token, body).await, field);
    }
}

#[tokio::test]
async fn another_orgs_token_cannot_read_change_or_delete_a_shipping_rule() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let other = app.create_org();
    let (address, carrier) = setup(&app, &org).await;
    let rule = app
        .create_rule(&org, rule_body(&id_of(&carrier), &id_of(&address)))
        .await;
    let id = id_of(&rule);
    let replacement = with(
        rule_body(&id_of(&carrier), &id_of(&address)),
        "name",
        json!("Hijacked"),
    );
    for path in [
        format!("/orgs/{}/shipping-rules/{id}", org.id),
        format!("/orgs/{}/shipping-rules/{id}", other.id),
    ] {
        app.get(&path, &other.token).await.problem(404, "not_found");
        app.put(&path, &other.token, replacement.clone())
            .await
            .problem(404, "not_found");
        app.delete(&path, &other.token)
            .await
            .problem(404, "not_found");
    }
    assert_eq!(
        app.get(&rule_path(&org, &rule), &org.token)
            .await
            .expect(200),
        rule
    );
}
