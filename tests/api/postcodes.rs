//! Receiver postcodes checked against their country's format at create and update
//! (DESIGN §22): a 400 naming the field and what the country's postcodes look like; case, a
//! country prefix and one space ignored; countries without a fixed format take anything.

use serde_json::json;

use crate::{
    fixtures::{id_of, shipment_body},
    helpers::{TestApp, error_fields},
};

#[tokio::test]
async fn a_receiver_postcode_outside_its_countrys_format_is_refused_at_create_and_update() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let path = format!("/orgs/{}/shipments", org.id);

    // A Danish postcode of six digits.
    let mut body = shipment_body(&id_of(&address), &id_of(&carrier));
    body["parties"][0]["postalCode"] = json!("800000");
    let problem = app
        .post(&path, &org.token, body.clone())
        .await
        .problem(400, "validation_failed");
    assert_eq!(error_fields(&problem), ["parties[0].postalCode"]);
    assert_eq!(
        problem["errors"][0]["message"],
        "not a postcode of Denmark; expected 4 digits, e.g. 8660"
    );

    // Written as people write them: lower case, the country's prefix, one space.
    for (country, postcode) in [
        ("NL", "1234ab"),
        ("SE", "SE-111 22"),
        ("GB", "sw1a1aa"),
        ("PL", "00-950"),
        ("CA", "k1a 0b1"),
        ("HK", "anything"),
    ] {
        body["parties"][0]["countryCode"] = json!(country);
        body["parties"][0]["postalCode"] = json!(postcode);
        app.post(&path, &org.token, body.clone()).await.expect(201);
    }

    // The sender's own postcode is the shop's business; only the receiver's is checked.
    body["parties"][0]["countryCode"] = json!("DK");
    body["parties"][0]["postalCode"] = json!("8000");
    let created = app.post(&path, &org.token, body.clone()).await.expect(201);
    let id = id_of(&created);

    // An update that breaks the receiver's postcode is refused and changes nothing.
    let mut parties = created["parties"].clone();
    let receiver = parties
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|p| p["type"] == "receiver")
        .unwrap();
    receiver["countryCode"] = json!("DE");
    let problem = app
        .patch(
            &format!("{path}/{id}"),
            &org.token,
            json!({"parties": parties}),
        )
        .await
        .problem(400, "validation_failed");
    let field = error_fields(&problem);
    assert_eq!(field.len(), 1, "{problem}");
    assert!(field[0].ends_with(".postalCode"), "{problem}");
    assert_eq!(
        problem["errors"][0]["message"],
        "not a postcode of Germany; expected 5 digits, e.g. 26133"
    );
    let kept = app
        .get(&format!("{path}/{id}"), &org.token)
        .await
        .expect(200);
    assert_eq!(kept["parties"], created["parties"]);
}
