//! POST /orgs/{orgId}/rates (DESIGN §22) against the replays of UPS's Rating API and MyDHL's
//! rates, each checking the requests against the carrier's published description: every
//! carrier with a rating API asked at once, offers cheapest first, a carrier without one named
//! in the errors, a slow carrier cut off at the deadline, a failing one reported, the rest
//! answered all the same.

use std::time::Duration;

use serde_json::{Value, json};

use super::{
    dhl_express::{self, PREFIX},
    replay::{Replay, Scenario},
    setup, ups,
};
use crate::fixtures::id_of;

async fn start(timeout_ms: u64) -> (Replay, Replay, super::RealShop, Value, Value) {
    let ups_replay = Replay::start(ups::ups).await;
    let dhl_replay = Replay::start(dhl_express::dhl).await;
    let shop = setup(&format!(
        "[carriers]\nups_url = \"{}\"\ndhl_express_url = \"{}{PREFIX}\"\nrates_timeout_ms = {timeout_ms}\n",
        ups_replay.url, dhl_replay.url
    ))
    .await;
    let ups_carrier = shop.carrier("ups", ups::config("pdf"), "11").await;
    let dhl_carrier = shop
        .carrier("dhl_express", dhl_express::config("pdf"), "P")
        .await;
    (ups_replay, dhl_replay, shop, ups_carrier, dhl_carrier)
}

/// The shop's shipment body going to Stockholm, without carrier settings.
fn to_sweden(shop: &super::RealShop) -> Value {
    let mut body = shop.shop.body();
    body.as_object_mut().unwrap().remove("carrierSettings");
    body["parties"][0]["countryCode"] = json!("SE");
    body["parties"][0]["city"] = json!("Stockholm");
    body["parties"][0]["postalCode"] = json!("111 22");
    body["parcels"][0]["dimensions"] = json!({"length": 30, "width": 20, "height": 10});
    body
}

async fn rates(shop: &super::RealShop, body: Value) -> crate::helpers::Reply {
    shop.shop
        .app
        .post(
            &format!("/orgs/{}/rates", shop.shop.org.id),
            &shop.shop.org.token,
            body,
        )
        .await
}

#[tokio::test]
async fn every_carrier_with_a_rating_api_is_asked_and_offers_come_cheapest_first() {
    let (ups_replay, dhl_replay, shop, ups_carrier, dhl_carrier) = start(2500).await;
    let answer = rates(&shop, to_sweden(&shop)).await.expect(200);
    ups_replay.assert_clean();
    dhl_replay.assert_clean();
    let offers: Vec<(String, String, String, String)> = answer["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["carrierSlug"].as_str().unwrap().to_string(),
                r["productId"].as_str().unwrap().to_string(),
                r["price"].as_str().unwrap().to_string(),
                r["currency"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected: Vec<(String, String, String, String)> = [
        ("ups", "11", "15.10", "EUR"),
        ("ups", "65", "41.00", "EUR"),
        ("ups", "07", "58.20", "EUR"),
        ("dhl_express", "P", "61.40", "EUR"),
        ("dhl_express", "K", "98.00", "EUR"),
    ]
    .iter()
    .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
    .collect();
    assert_eq!(offers, expected, "{answer}");
    let first = &answer["data"][0];
    assert_eq!(first["carrierId"], ups_carrier["id"]);
    assert_eq!(first["productName"], "UPS Standard");
    assert_eq!(first["transitDays"], 3);
    let dhl = &answer["data"][3];
    assert_eq!(dhl["carrierId"], dhl_carrier["id"]);
    assert_eq!(dhl["productName"], "EXPRESS WORLDWIDE");
    assert_eq!(dhl["estimatedDelivery"], "2026-12-01");
    assert_eq!(dhl["transitDays"], 2);
    // The shop's sandbox carrier has no rating API, and says so.
    assert_eq!(
        answer["errors"],
        json!([{"carrierId": id_of(&shop.shop.carrier), "carrierName": "Sandbox Carrier",
                "carrierSlug": "sandbox", "code": "no_rating_api",
                "message": "Sandbox Carrier (sandbox) has no rating API; its prices are not known to Shipbase"}])
    );

    // What the carriers were asked: UPS every service (no priced order lines abroad, so no
    // time in transit), DHL Express with the package's weight and size, not dutiable in the EU.
    let ups_request = ups_replay
        .requests()
        .into_iter()
        .find(|r| r.path.starts_with("/api/rating/"))
        .unwrap();
    assert_eq!(ups_request.path, "/api/rating/v2409/Shop");
    let shipment = &ups_request.body["RateRequest"]["Shipment"];
    assert_eq!(shipment["ShipTo"]["Address"]["PostalCode"], "11122");
    assert_eq!(shipment["Package"][0]["PackageWeight"]["Weight"], "1.5");
    let dhl_request = dhl_replay.requests().pop().unwrap();
    assert_eq!(dhl_request.body["isCustomsDeclarable"], false);
    assert_eq!(
        dhl_request.body["packages"],
        json!([{"weight": 1.5, "dimensions": {"length": 30.0, "width": 20.0, "height": 10.0}}])
    );
    assert_eq!(
        dhl_request.body["customerDetails"]["receiverDetails"]["countryCode"],
        "SE"
    );

    // With priced order lines UPS is asked for time in transit too, and the stored shipment
    // can be rated by its id.
    let mut body = to_sweden(&shop);
    body["parcels"][0]["orderLines"] =
        json!([{"sku": "SKU-1", "quantity": 2, "unitPrice": 149.5, "currency": "DKK"}]);
    body["carrierSettings"] = json!({"carrierId": ups_carrier["id"], "productId": "11"});
    let id = id_of(&shop.shop.create(body).await);
    let answer = rates(&shop, json!({"shipmentId": id})).await.expect(200);
    ups_replay.assert_clean();
    assert_eq!(answer["data"][0]["estimatedDelivery"], "2026-12-02");
    let ups_request = ups_replay
        .requests()
        .into_iter()
        .filter(|r| r.path.starts_with("/api/rating/"))
        .last()
        .unwrap();
    assert_eq!(ups_request.path, "/api/rating/v2409/Shoptimeintransit");
    assert_eq!(
        ups_request.body["RateRequest"]["Shipment"]["InvoiceLineTotal"],
        json!({"CurrencyCode": "DKK", "MonetaryValue": "299"})
    );
}

#[tokio::test]
async fn a_slow_carrier_is_cut_off_at_the_deadline_and_a_failing_one_is_reported() {
    let (ups_replay, dhl_replay, shop, _, _) = start(400).await;
    ups_replay.set_delay(Duration::from_millis(2000));
    dhl_replay.set(Scenario::Down);
    let answer = rates(&shop, to_sweden(&shop)).await.expect(200);
    assert_eq!(answer["data"], json!([]));
    let errors: Vec<(&str, &str)> = answer["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["carrierSlug"].as_str().unwrap(),
                e["code"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        errors,
        [
            ("sandbox", "no_rating_api"),
            ("ups", "carrier_timeout"),
            ("dhl_express", "carrier_unavailable")
        ]
    );
    assert_eq!(
        answer["errors"][1]["message"],
        "ups did not answer within 400 ms"
    );
    assert!(
        answer["errors"][2]["message"]
            .as_str()
            .unwrap()
            .contains("HTTP 500"),
        "{answer}"
    );

    // DHL refusing: its words are in the error; UPS answering again gives its offers.
    ups_replay.set_delay(Duration::ZERO);
    dhl_replay.set(Scenario::Reject);
    let answer = rates(&shop, to_sweden(&shop)).await.expect(200);
    assert_eq!(answer["data"].as_array().unwrap().len(), 3, "{answer}");
    assert_eq!(answer["errors"][1]["code"], "carrier_rejected");
    assert!(
        answer["errors"][1]["message"]
            .as_str()
            .unwrap()
            .contains("The account number is not found"),
        "{answer}"
    );
}

#[tokio::test]
async fn the_shipment_to_rate_is_checked_like_a_new_one() {
    let (_, _, shop, _, _) = start(2500).await;
    let id = id_of(&shop.shop.create(shop.shop.body()).await);
    let problem = rates(&shop, json!({"shipmentId": id, "parcels": [{"weight": 1}]}))
        .await
        .problem(400, "validation_failed");
    assert_eq!(problem["errors"][0]["field"], "shipmentId");
    let problem = rates(&shop, json!({}))
        .await
        .problem(400, "validation_failed");
    let fields: Vec<&str> = problem["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["senderAddressId", "parties", "parcels"]);
    let mut body = to_sweden(&shop);
    body["parties"][0]["postalCode"] = json!("1112");
    let problem = rates(&shop, body).await.problem(400, "validation_failed");
    assert_eq!(problem["errors"][0]["field"], "parties[0].postalCode");
    rates(
        &shop,
        json!({"shipmentId": "shp_01ARZ3NDEKTSV4RRFFQ69G5FAV"}),
    )
    .await
    .problem(404, "not_found");
}

#[tokio::test]
async fn a_rule_with_a_carrier_selection_takes_the_cheapest_or_fastest_offer() {
    let (ups_replay, dhl_replay, shop, ups_carrier, dhl_carrier) = start(2500).await;
    let rules = format!("/orgs/{}/shipping-rules", shop.shop.org.id);
    let rule = |selection: &str| {
        json!({"name": format!("{selection} of two"), "carrierId": dhl_carrier["id"], "productId": "P",
               "senderAddressId": id_of(&shop.shop.address), "carrierSelection": selection,
               "selectionCarrierIds": [ups_carrier["id"]]})
    };
    let cheapest = shop
        .shop
        .app
        .post(&rules, &shop.shop.org.token, rule("cheapest"))
        .await
        .expect(201);
    assert_eq!(cheapest["carrierSelection"], "cheapest");
    let fastest = shop
        .shop
        .app
        .post(&rules, &shop.shop.org.token, rule("fastest"))
        .await
        .expect(201);
    let mut body = to_sweden(&shop);
    body["carrierSettings"] =
        json!({"carrierId": id_of(&shop.shop.carrier), "productId": "standard"});
    let id = id_of(&shop.shop.create(body).await);
    let apply = |rule: &Value| {
        shop.shop.post(
            &id,
            "/apply-shipping-rule",
            json!({"shippingRuleId": rule["id"]}),
        )
    };
    let settings = |shipment: &Value| {
        (
            shipment["carrierSettings"]["carrierId"].clone(),
            shipment["carrierSettings"]["productId"].clone(),
        )
    };
    // UPS Standard at 15.10 is the cheapest; of the one-day offers UPS Worldwide Saver (41.00)
    // is the cheapest, so the fastest.
    let applied = apply(&cheapest).await.expect(200);
    assert_eq!(settings(&applied), (ups_carrier["id"].clone(), json!("11")));
    assert_eq!(applied["shippingRule"]["id"], cheapest["id"]);
    let applied = apply(&fastest).await.expect(200);
    assert_eq!(settings(&applied), (ups_carrier["id"].clone(), json!("65")));
    // No carrier answering: the rule's own carrier and product.
    ups_replay.set(Scenario::Down);
    dhl_replay.set(Scenario::Down);
    let applied = apply(&cheapest).await.expect(200);
    assert_eq!(settings(&applied), (dhl_carrier["id"].clone(), json!("P")));

    // Booking picks again: applied while UPS was cheapest, booked while UPS is down, the
    // shipment goes with DHL Express.
    dhl_replay.set(Scenario::Ok);
    ups_replay.set(Scenario::Ok);
    let applied = apply(&cheapest).await.expect(200);
    assert_eq!(settings(&applied), (ups_carrier["id"].clone(), json!("11")));
    ups_replay.set(Scenario::Down);
    let booked = shop.shop.app.book_shipment(&shop.shop.org, &id).await;
    assert_eq!(settings(&booked), (dhl_carrier["id"].clone(), json!("P")));
    assert_eq!(booked["status"], "processing");
    dhl_replay.assert_clean();

    // The selection is checked like the rest of the rule.
    let mut wrong = rule("priciest");
    wrong["selectionCarrierIds"] = json!(["car_01ARZ3NDEKTSV4RRFFQ69G5FAV"]);
    let problem = shop
        .shop
        .app
        .post(&rules, &shop.shop.org.token, wrong)
        .await
        .problem(400, "validation_failed");
    let fields: Vec<&str> = problem["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        ["carrierSelection", "selectionCarrierIds[0]"],
        "{problem}"
    );
}

#[tokio::test]
async fn the_new_shipment_form_asks_the_carriers_and_a_chosen_offer_is_the_shipments_product() {
    use crate::workbench::{
        app_path, assert_html_page, borrowed, csrf, new_shipment_fields, owner, set, shipment_in,
    };
    let (ups_replay, _dhl_replay, shop, ups_carrier, _) = start(2500).await;
    let mut browser = owner(&shop.shop).await;
    let path = app_path(&shop.shop.org, "shipments/new");
    let page = browser.get(&path).await;
    assert!(page.text().contains("Ask the carriers"), "{}", page.text());
    let token = csrf(&page);
    let mut fields = new_shipment_fields(&shop.shop, &token, "WB-RATES");
    set(&mut fields, "receiver.countryCode", "SE");
    set(&mut fields, "receiver.postalCode", "111 22");
    set(&mut fields, "receiver.city", "Stockholm");
    fields.push(("action".into(), "carrier_rates".into()));
    let page = browser.post(&path, &borrowed(&fields)).await;
    assert_html_page(&page, "the carriers' prices");
    let text = page.text();
    assert!(text.contains("ups, UPS Standard: 15.10 EUR"), "{text}");
    assert!(
        text.contains("dhl_express, EXPRESS WORLDWIDE: 61.40 EUR"),
        "{text}"
    );
    assert!(
        text.contains("Sandbox Carrier: Sandbox Carrier (sandbox) has no rating API"),
        "{text}"
    );
    let offer = format!("{}|11", id_of(&ups_carrier));
    assert!(
        page.html.contains(&format!("value=\"{offer}\"")),
        "{}",
        page.html
    );
    ups_replay.assert_clean();

    // A bad postcode is shown at its input, as on create.
    let mut wrong = fields.clone();
    set(&mut wrong, "receiver.postalCode", "1112");
    let page = browser.post(&path, &borrowed(&wrong)).await;
    assert!(
        page.text().contains("not a postcode of Sweden"),
        "{}",
        page.text()
    );

    // Choosing the offer makes it the shipment's carrier and product.
    fields.retain(|(k, _)| k != "action");
    fields.push(("offer".into(), offer));
    let page = browser.post(&path, &borrowed(&fields)).await;
    assert_eq!(page.status, 303, "{}", page.text());
    let made = shop
        .shop
        .get(&shipment_in(&page.location(), &shop.shop.org))
        .await;
    assert_eq!(
        made["carrierSettings"]["carrierId"],
        json!(id_of(&ups_carrier))
    );
    assert_eq!(made["carrierSettings"]["productId"], "11");
}
