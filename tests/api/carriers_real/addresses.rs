//! POST /orgs/{orgId}/addresses/validate (DESIGN §22): the postcode against its country's
//! format, and in the US and Puerto Rico the verdict of the organization's UPS carrier, from the
//! replay of UPS's Address Validation API.

use serde_json::{Value, json};

use super::{replay::Replay, setup, ups};
use crate::fixtures::id_of;

async fn validate(shop: &super::RealShop, body: Value) -> crate::helpers::Reply {
    shop.shop
        .app
        .post(
            &format!("/orgs/{}/addresses/validate", shop.shop.org.id),
            &shop.shop.org.token,
            body,
        )
        .await
}

fn in_aliso_viejo(line: &str) -> Value {
    json!({"name": "Jane Receiver", "address1": line, "postalCode": "92656", "city": "Aliso Viejo",
           "countryCode": "US"})
}

#[tokio::test]
async fn postcodes_are_checked_everywhere_and_us_streets_by_ups() {
    let replay = Replay::start(ups::ups).await;
    let shop = setup(&format!("[carriers]\nups_url = \"{}\"\n", replay.url)).await;

    // No carrier of the shop validates Danish streets: the postcode's format is the check.
    let answer = validate(
        &shop,
        json!({"address1": "Main Street 1", "postalCode": "80000", "city": "Aarhus", "countryCode": "DK"}),
    )
    .await
    .expect(200);
    assert_eq!(
        answer,
        json!({"valid": false, "postalCodeError": "not a postcode of Denmark; expected 4 digits, e.g. 8660",
               "carrierCheck": null})
    );

    let carrier = shop.carrier("ups", ups::config("pdf"), "11").await;
    let answer = validate(&shop, in_aliso_viejo("26601 Aliso Viejo Pkwy"))
        .await
        .expect(200);
    assert_eq!(answer["valid"], true, "{answer}");
    assert_eq!(answer["postalCodeError"], Value::Null);
    assert_eq!(
        answer["carrierCheck"],
        json!({"carrierId": carrier["id"], "carrierName": "ups", "result": "valid", "candidates": [
            {"address1": "26601 ALISO VIEJO PKWY", "address2": null, "postalCode": "92656-3121",
             "city": "ALISO VIEJO", "state": "CA", "countryCode": "US", "classification": "commercial"}]})
    );
    let request = replay
        .requests()
        .into_iter()
        .find(|r| r.path.starts_with("/api/addressvalidation/"))
        .unwrap();
    assert_eq!(request.path, "/api/addressvalidation/v2/3");
    assert_eq!(
        request.body["XAVRequest"]["AddressKeyFormat"]["PoliticalDivision1"],
        "CA"
    );

    let answer = validate(&shop, in_aliso_viejo("Aliso Viejo Pkwy"))
        .await
        .expect(200);
    assert_eq!(answer["valid"], false);
    assert_eq!(answer["carrierCheck"]["result"], "ambiguous");
    assert_eq!(
        answer["carrierCheck"]["candidates"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let answer = validate(&shop, in_aliso_viejo("1 Nowhere Road"))
        .await
        .expect(200);
    assert_eq!(
        (&answer["valid"], &answer["carrierCheck"]["result"]),
        (&json!(false), &json!("no_candidates"))
    );
    replay.assert_clean();

    // A carrier that does not validate addresses, when named, is refused.
    let mut body = in_aliso_viejo("26601 Aliso Viejo Pkwy");
    body["carrierId"] = json!(id_of(&shop.shop.carrier));
    let problem = validate(&shop, body).await.problem(409, "invalid_state");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("does not validate addresses in US"),
        "{problem}"
    );
    let problem = validate(
        &shop,
        json!({"address1": "x", "postalCode": "1", "city": "y", "countryCode": "Denmark"}),
    )
    .await
    .problem(400, "validation_failed");
    assert_eq!(problem["errors"][0]["field"], "countryCode");
}
