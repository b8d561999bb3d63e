//! Every problem of a body in one answer: its shape (unknown, missing and mistyped fields), the
//! values the operation checks itself (enums kept as text, lengths, counts), and the ids of
//! other resources it names, together; nothing is stored.

use serde_json::json;

use crate::{
    fixtures::{carrier_body, id_of, rule_body, shipment_body, with},
    helpers::{TestApp, error_pairs},
};

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(f, m)| ((*f).to_string(), (*m).to_string()))
        .collect()
}

#[tokio::test]
async fn a_shipment_body_gets_its_shape_value_and_reference_errors_at_once() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let path = format!("/orgs/{}/shipments", org.id);
    let mut body = shipment_body("adr_nowhere", "car_nowhere");
    body["reference"] = json!(7);
    body["type"] = json!("outbund");
    body["colour"] = json!("red");
    let problem = app.post(&path, &org.token, body).await;
    assert_eq!(problem.status.as_u16(), 400, "{}", problem.text);
    assert_eq!(problem.body["code"], "validation_failed");
    assert_eq!(
        error_pairs(&problem.body),
        pairs(&[
            ("colour", "unknown field"),
            ("reference", "must be a string"),
            ("type", "must be one of outbound, inbound"),
            (
                "senderAddressId",
                "no sender address adr_nowhere in this organization"
            ),
            (
                "carrierSettings.carrierId",
                "no carrier car_nowhere in this organization"
            ),
        ]),
        "{}",
        problem.text
    );

    // A body of the right shape names both missing references, not only the first.
    let problem = app
        .post(
            &path,
            &org.token,
            shipment_body("adr_nowhere", "car_nowhere"),
        )
        .await;
    assert_eq!(problem.status.as_u16(), 400, "{}", problem.text);
    assert_eq!(
        error_pairs(&problem.body),
        pairs(&[
            (
                "senderAddressId",
                "no sender address adr_nowhere in this organization"
            ),
            (
                "carrierSettings.carrierId",
                "no carrier car_nowhere in this organization"
            ),
        ]),
    );

    // A required field left out and a value error come together; the placeholder that stands in
    // for the missing field is not reported a second time.
    let mut body = shipment_body("adr_nowhere", "car_nowhere");
    body.as_object_mut().expect("object").remove("reference");
    body["parcels"] = json!([]);
    let problem = app.post(&path, &org.token, body).await;
    let fields: Vec<String> = error_pairs(&problem.body)
        .into_iter()
        .map(|e| e.0)
        .collect();
    assert_eq!(
        fields,
        [
            "reference",
            "parcels",
            "senderAddressId",
            "carrierSettings.carrierId"
        ],
        "{}",
        problem.text
    );

    let listed = app.get(&path, &org.token).await;
    assert_eq!(listed.body["total"], 0, "{}", listed.text);
}

#[tokio::test]
async fn a_carrier_body_names_its_config_typo_and_its_missing_sender_address_together() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let body = with(
        carrier_body("adr_nowhere"),
        "config",
        json!({"lableSize": "100X150"}),
    );
    let problem = app
        .post(&format!("/orgs/{}/carriers", org.id), &org.token, body)
        .await;
    assert_eq!(problem.status.as_u16(), 400, "{}", problem.text);
    assert_eq!(
        error_pairs(&problem.body),
        pairs(&[
            (
                "config.lableSize",
                "unknown key; did you mean \"labelSize\"?"
            ),
            (
                "senderAddressId",
                "no sender address adr_nowhere in this organization"
            ),
        ]),
    );
}

#[tokio::test]
async fn a_shipping_rule_body_names_every_missing_reference() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let address = app.create_sender_address(&org).await;
    let path = format!("/orgs/{}/shipping-rules", org.id);
    let mut body = rule_body("car_nowhere", "adr_nowhere");
    body["labelPrinterId"] = json!("prn_nowhere");
    body["returnShippingRuleId"] = json!("shr_nowhere");
    body["name"] = json!("");
    let problem = app.post(&path, &org.token, body).await;
    assert_eq!(problem.status.as_u16(), 400, "{}", problem.text);
    assert_eq!(
        error_pairs(&problem.body),
        pairs(&[
            ("name", "must not be empty"),
            ("carrierId", "no carrier car_nowhere in this organization"),
            (
                "senderAddressId",
                "no sender address adr_nowhere in this organization"
            ),
            (
                "labelPrinterId",
                "no printer prn_nowhere in this organization"
            ),
            (
                "returnShippingRuleId",
                "no shipping rule shr_nowhere in this organization"
            ),
        ]),
        "{}",
        problem.text
    );

    // With its references right, the same rule is made.
    let carrier = app.create_carrier(&org, &id_of(&address)).await;
    let made = app
        .post(
            &path,
            &org.token,
            rule_body(&id_of(&carrier), &id_of(&address)),
        )
        .await;
    assert_eq!(made.status.as_u16(), 201, "{}", made.text);
}

#[tokio::test]
async fn empty_ids_and_overlong_text_are_refused_not_stored() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let address = app.create_sender_address(&org).await;
    let carrier = app.create_carrier(&org, &id_of(&address)).await;
    let mut rule = rule_body(&id_of(&carrier), &id_of(&address));
    rule["returnShippingRuleId"] = json!("");
    rule["labelPrinterId"] = json!("");
    let problem = app
        .post(
            &format!("/orgs/{}/shipping-rules", org.id),
            &org.token,
            rule,
        )
        .await;
    assert_eq!(problem.status.as_u16(), 400, "{}", problem.text);
    assert_eq!(
        error_pairs(&problem.body),
        pairs(&[
            ("labelPrinterId", "must not be empty (null for none)"),
            ("returnShippingRuleId", "must not be empty (null for none)"),
        ])
    );
    // The schema's length bounds hold for every text field, the printer's address among them.
    let printer = json!({"name": "Desk", "kind": "raw", "format": "pdf",
                         "address": format!("{}*", "\u{1F4E6}".repeat(500))});
    let problem = app
        .post(&format!("/orgs/{}/printers", org.id), &org.token, printer)
        .await;
    assert_eq!(problem.status.as_u16(), 400, "{}", problem.text);
    assert_eq!(
        error_pairs(&problem.body),
        pairs(&[("address", "must be at most 500 characters long")])
    );
}
