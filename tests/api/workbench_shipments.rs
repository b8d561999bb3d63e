//! The New shipment form's parcels, goods, services and rates, and splitting a parcel off on a
//! shipment's page (DESIGN §20).

use serde_json::json;

use crate::{
    fixtures::{Shop, id_of, rule_body, with},
    workbench::{
        app_path, assert_html_page, borrowed, csrf, error_at, new_shipment_fields, owner,
        shipment_in, total,
    },
};

/// The new-shipment form's fields without its single parcel, and `extra` added.
fn fields_with(shop: &Shop, token: &str, extra: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut fields = new_shipment_fields(shop, token, "WB-7001");
    fields.retain(|(k, _)| k != "parcels[0].weight");
    fields.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    fields
}

#[tokio::test]
async fn a_new_shipment_has_parcels_with_their_goods_and_services() {
    let shop = Shop::new().await;
    let mut browser = owner(&shop).await;
    let path = app_path(&shop.org, "shipments/new");
    let form = browser.get(&path).await;
    assert_html_page(&form, "the new shipment form");
    let token = csrf(&form);

    // Another parcel row, nothing made.
    let more = fields_with(
        &shop,
        &token,
        &[("parcels[0].weight", "2"), ("action", "more_parcels")],
    );
    let page = browser.post(&path, &borrowed(&more)).await;
    assert_html_page(&page, "another parcel");
    assert_eq!(page.hidden("parcels[0].weight").as_deref(), Some("2"));
    assert!(page.html.contains("name=\"parcels[1].weight\""));
    assert_eq!(page.options("lines[0].parcel"), ["1", "2"]);
    assert_eq!(total(&shop, "shipments").await, 0);

    // A line's problem is shown at its row.
    let bad = fields_with(
        &shop,
        &token,
        &[
            ("parcels[0].weight", "2"),
            ("lines[0].sku", "MUG"),
            ("lines[0].quantity", "0"),
        ],
    );
    let page = browser.post(&path, &borrowed(&bad)).await;
    assert_eq!(page.status, 200, "{}", page.text());
    assert!(!error_at(&page, "lines[0].quantity").is_empty());
    assert_eq!(total(&shop, "shipments").await, 0);

    let good = fields_with(
        &shop,
        &token,
        &[
            ("parcels[0].weight", "2"),
            ("parcels[1].weight", "0,5"),
            ("currency", "dkk"),
            ("lines[0].sku", "MUG"),
            ("lines[0].description", "Stoneware mug"),
            ("lines[0].quantity", "2"),
            ("lines[0].unitPrice", "49.50"),
            ("lines[0].parcel", "1"),
            ("lines[1].sku", "TEE"),
            ("lines[1].quantity", "1"),
            ("lines[1].countryOfOrigin", "pt"),
            ("lines[1].parcel", "2"),
            ("services", "signature"),
        ],
    );
    let page = browser.post(&path, &borrowed(&good)).await;
    assert_eq!(page.status, 303, "{}", page.text());
    let id = shipment_in(&page.location(), &shop.org);
    let made = shop.get(&id).await;
    assert_eq!(made["parcels"][0]["weight"], json!(2.0));
    assert_eq!(made["parcels"][1]["weight"], json!(0.5));
    let first = &made["parcels"][0]["orderLines"][0];
    assert_eq!(
        (
            &first["sku"],
            &first["quantity"],
            &first["unitPrice"],
            &first["currency"]
        ),
        (&json!("MUG"), &json!(2), &json!(49.5), &json!("DKK"))
    );
    assert_eq!(made["parcels"][1]["orderLines"][0]["countryOfOrigin"], "PT");
    assert_eq!(made["carrierSettings"]["services"], json!(["signature"]));
}

#[tokio::test]
async fn the_rules_rates_are_offered_and_the_one_chosen_is_applied() {
    let shop = Shop::new().await;
    let rule = with(
        rule_body(&id_of(&shop.carrier), &id_of(&shop.address)),
        "conditions",
        json!([{"type": "flatRate", "shippingPrice": 39, "currency": "DKK"}]),
    );
    let rule = shop.app.create_rule(&shop.org, rule).await;
    let mut browser = owner(&shop).await;
    let path = app_path(&shop.org, "shipments/new");
    let token = csrf(&browser.get(&path).await);
    let quote = fields_with(
        &shop,
        &token,
        &[("parcels[0].weight", "1"), ("action", "quote")],
    );
    let page = browser.post(&path, &borrowed(&quote)).await;
    assert_html_page(&page, "the rates");
    assert!(page.text().contains("39.00 DKK"), "{}", page.text());
    assert!(
        page.html.contains(&format!("value=\"{}\"", id_of(&rule))),
        "{}",
        page.html
    );
    assert_eq!(total(&shop, "shipments").await, 0);

    // Without a receiver country the form says what a rate needs.
    let mut nowhere = quote.clone();
    nowhere.retain(|(k, _)| k != "receiver.countryCode");
    let page = browser.post(&path, &borrowed(&nowhere)).await;
    assert!(
        page.text().contains("the receiver's country is needed"),
        "{}",
        page.text()
    );

    let chosen = fields_with(
        &shop,
        &token,
        &[("parcels[0].weight", "1"), ("rule", &id_of(&rule))],
    );
    let page = browser.post(&path, &borrowed(&chosen)).await;
    assert_eq!(page.status, 303, "{}", page.text());
    let made = shop.get(&shipment_in(&page.location(), &shop.org)).await;
    assert_eq!(made["shippingRuleId"], json!(id_of(&rule)));
}

#[tokio::test]
async fn a_parcels_lines_are_split_off_into_a_new_shipment() {
    let shop = Shop::new().await;
    let body = with(
        shop.body(),
        "parcels",
        json!([{"weight": 2, "orderLines": [{"sku": "MUG", "quantity": 2}, {"sku": "TEE", "quantity": 1}]}]),
    );
    let original = shop.create(body).await;
    let id = id_of(&original);
    let parcel = original["parcels"][0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let tee = original["parcels"][0]["orderLines"][1]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mut browser = owner(&shop).await;
    let path = app_path(&shop.org, &format!("shipments/{id}"));
    let page = browser.get(&path).await;
    assert_html_page(&page, "a shipment with a parcel to split");
    assert!(page.html.contains("Split into a new shipment"));
    let split = browser
        .post(
            &path,
            &[
                ("csrf_token", &csrf(&page)),
                ("action", "split"),
                ("parcelId", &parcel),
                ("orderLineIds", &tee),
                ("reference", "WB-SPLIT"),
            ],
        )
        .await;
    assert_eq!(split.status, 303, "{}", split.text());
    let new_id = shipment_in(&split.location(), &shop.org);
    assert_ne!(new_id, id);
    let new = shop.get(&new_id).await;
    assert_eq!(new["reference"], "WB-SPLIT");
    assert_eq!(new["parcels"][0]["orderLines"][0]["sku"], "TEE");
    let kept = shop.get(&id).await;
    assert_eq!(
        kept["parcels"][0]["orderLines"].as_array().map(Vec::len),
        Some(1)
    );
    assert_eq!(kept["parcels"][0]["orderLines"][0]["sku"], "MUG");

    // Booked, it is no longer offered.
    shop.post_empty(&id, "/book").await.expect(200);
    let page = browser.get(&path).await;
    assert!(!page.html.contains("Split into a new shipment"));
}

#[tokio::test]
async fn a_booked_shipments_labels_are_previewed_as_pictures() {
    let shop = Shop::new().await;
    let id = id_of(&shop.create(shop.body()).await);
    let booked = shop.post_empty(&id, "/book").await.expect(200);
    let label = booked["documents"]
        .as_array()
        .and_then(|d| d.iter().find(|d| d["documentType"] == "label"))
        .cloned()
        .unwrap_or_else(|| panic!("no label in {booked}"));
    let mut browser = owner(&shop).await;
    let page = browser
        .get(&app_path(&shop.org, &format!("shipments/{id}")))
        .await;
    let preview = app_path(
        &shop.org,
        &format!("shipments/{id}/documents/{}/preview", id_of(&label)),
    );
    assert!(
        page.html.contains(&format!("src=\"{preview}\"")),
        "{}",
        page.html
    );
    assert!(page.html.contains("alt=\"Preview of the label 1\""));
    let image = browser.get(&preview).await;
    assert_eq!(image.status, 200);
    assert_eq!(image.header("content-type"), "image/png");
    // The page's text is read as UTF-8: the signature's first byte is lost, its letters are not.
    assert!(image.html.starts_with("\u{fffd}PNG\r\n"), "not a PNG");
    assert!(image.html.len() > 5_000, "a blank picture");

    // Another organization's person gets 404.
    let other = shop.app.create_org();
    let password = shop.app.set_password(&other.email);
    let mut stranger = crate::browser::Browser::signed_in(&shop.app, &other.email, &password).await;
    assert_eq!(stranger.get(&preview).await.status, 404);
}

#[tokio::test]
async fn the_selected_shipments_labels_are_printed_again_on_the_station_printer() {
    let shop = Shop::with_config(crate::printers::LOOPBACK).await;
    let printer = crate::printers::RawPrinter::start().await;
    let made = crate::printers::create_printer(
        &shop,
        json!({"name": "Desk", "kind": "raw", "address": format!("127.0.0.1:{}", printer.port),
               "format": "pdf"}),
    )
    .await;
    let mut ids = Vec::new();
    for _ in 0..2 {
        let id = id_of(&shop.create(shop.body()).await);
        shop.post_empty(&id, "/book").await.expect(200);
        ids.push(id);
    }
    let mut browser = owner(&shop).await;
    let list = app_path(&shop.org, "shipments");
    let page = browser.get(&list).await;
    // No station printer yet: the action is not offered.
    assert!(!page.html.contains("Print labels of selected"));
    let scan = app_path(&shop.org, "scan");
    let token = csrf(&browser.get(&scan).await);
    let chosen = browser
        .post(
            &scan,
            &[
                ("csrf_token", &token),
                ("action", "station"),
                ("printerId", &id_of(&made)),
            ],
        )
        .await;
    assert_eq!(chosen.status, 303, "{}", chosen.text());
    let page = browser.get(&list).await;
    assert!(
        page.html.contains("Print labels of selected"),
        "{}",
        page.html
    );
    let printed = browser
        .post(
            &list,
            &[
                ("csrf_token", &csrf(&page)),
                ("action", "print"),
                ("ids", &ids[0]),
                ("ids", &ids[1]),
            ],
        )
        .await;
    assert_eq!(printed.status, 303, "{}", printed.text());
    let page = browser.get(&list).await;
    assert!(
        page.text()
            .contains("Labels of 2 of 2 sent to this station's printer."),
        "{}",
        page.text()
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while printer.jobs().len() < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the labels never arrived"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(printer.jobs().iter().all(|job| job.starts_with(b"%PDF")));
}
