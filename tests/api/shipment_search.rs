//! Finding shipments (DESIGN §20): `search` matches a reference whole, or the receiver's name
//! words, e-mail and postal code and the tracking numbers by the beginning of each word, in any
//! case; `carrierId` filters by carrier; shipments stored before search existed are indexed in
//! the background; the workbench's list searches and its scan page opens a scanned tracking
//! number's shipment.

use serde_json::{Value, json};

use crate::{
    fixtures::{Shop, carrier_body, id_of, page_ids, receiver_party, shipment_body, with},
    helpers::TestApp,
    workbench::{app_path, csrf, owner},
};

/// A shipment of `shop` to a receiver called `name` at `email`, with `reference`.
async fn to(shop: &Shop, reference: &str, name: &str, email: &str) -> Value {
    let mut receiver = receiver_party();
    receiver["name"] = json!(name);
    receiver["email"] = json!(email);
    let body = with(
        with(shop.body(), "reference", json!(reference)),
        "parties",
        json!([receiver]),
    );
    shop.create(body).await
}

async fn search(shop: &Shop, query: &str) -> Vec<String> {
    let path = format!("/orgs/{}/shipments?{query}", shop.org.id);
    let page = shop.app.get(&path, &shop.org.token).await.expect(200);
    assert_eq!(
        page["total"].as_u64(),
        Some(page["data"].as_array().map_or(0, |d| d.len() as u64)),
        "{page}"
    );
    page_ids(&page)
}

#[tokio::test]
async fn search_finds_receivers_tracking_numbers_and_references_in_any_case() {
    let shop = Shop::new().await;
    let jane = id_of(&to(&shop, "WEB-1", "Jane Østergaard", "jane@shop.example").await);
    let john = id_of(&to(&shop, "WEB-2", "John Doe", "john@mail.example").await);
    let booked = shop.post_empty(&john, "/book").await.expect(200);
    let number = booked["tracking"]["number"]
        .as_str()
        .unwrap_or_else(|| panic!("no tracking number in {booked}"))
        .to_string();

    assert_eq!(search(&shop, "search=jane").await, [jane.as_str()]);
    assert_eq!(search(&shop, "search=%C3%98STER").await, [jane.as_str()]);
    assert_eq!(
        search(&shop, "search=jane%20%C3%B8ster").await,
        [jane.as_str()]
    );
    assert!(search(&shop, "search=jane%20doe").await.is_empty());
    assert_eq!(search(&shop, "search=john%40mail").await, [john.as_str()]);
    assert_eq!(search(&shop, "search=WEB-2").await, [john.as_str()]);
    assert_eq!(
        search(&shop, &format!("search={}", number.to_lowercase())).await,
        [john.as_str()]
    );
    assert_eq!(
        search(&shop, "search=8000").await,
        [john.as_str(), jane.as_str()]
    );
    assert!(search(&shop, "search=nobody").await.is_empty());
    // With the other filters.
    assert_eq!(
        search(&shop, "search=8000&status=processing").await,
        [john.as_str()]
    );

    // Another organization's shipments are never found.
    let other = shop.app.create_org();
    let (address, carrier) = shop.app.create_address_and_carrier(&other).await;
    let mut body = shipment_body(&id_of(&address), &id_of(&carrier));
    body["parties"][0]["name"] = json!("Jane Other");
    shop.app.create_shipment(&other, body).await;
    assert_eq!(search(&shop, "search=jane").await, [jane.as_str()]);
}

#[tokio::test]
async fn an_edit_moves_the_terms_and_a_deletion_takes_them_away() {
    let shop = Shop::new().await;
    let id = id_of(&to(&shop, "WEB-1", "Olga Oldname", "olga@shop.example").await);
    let mut receiver = receiver_party();
    receiver["name"] = json!("Nina Newname");
    let path = shop.path(&id, "");
    shop.app
        .patch(&path, &shop.org.token, json!({ "parties": [receiver] }))
        .await
        .expect(200);
    assert!(search(&shop, "search=olga").await.is_empty());
    assert!(search(&shop, "search=oldname").await.is_empty());
    assert_eq!(search(&shop, "search=newname").await, [id.as_str()]);
    // A status change keeps them.
    shop.app
        .set_shipment_status(&shop.org, &id, "on_hold")
        .await;
    assert_eq!(search(&shop, "search=nina").await, [id.as_str()]);
    shop.app
        .set_shipment_status(&shop.org, &id, "pending")
        .await;

    shop.app.delete(&path, &shop.org.token).await.expect(200);
    assert!(search(&shop, "search=nina").await.is_empty());
    // Its terms went with it (written and deleted by their key: no rows are left behind).
    assert_eq!(
        shop.app
            .db_execute("DELETE FROM shipment_terms WHERE shipment_id = ?1", &[&id]),
        0
    );
}

#[tokio::test]
async fn the_carrier_filter_keeps_one_carriers_shipments() {
    let shop = Shop::new().await;
    let first = id_of(&shop.create(shop.body()).await);
    let other = shop
        .app
        .post(
            &format!("/orgs/{}/carriers", shop.org.id),
            &shop.org.token,
            carrier_body(&id_of(&shop.address)),
        )
        .await
        .expect(201);
    let mut body = shop.body();
    body["carrierSettings"]["carrierId"] = json!(id_of(&other));
    let second = id_of(&shop.create(body).await);
    assert_eq!(
        search(&shop, &format!("carrierId={}", id_of(&shop.carrier))).await,
        [first.as_str()]
    );
    assert_eq!(
        search(&shop, &format!("carrierId={}", id_of(&other))).await,
        [second.as_str()]
    );
    assert!(search(&shop, "carrierId=car_nope").await.is_empty());
}

#[tokio::test]
async fn shipments_stored_before_search_are_indexed_in_the_background() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let mut body = shipment_body(&id_of(&address), &id_of(&carrier));
    body["parties"][0]["name"] = json!("Olga Oldtimer");
    let id = id_of(&app.create_shipment(&org, body).await);
    // As a database upgraded to search has it: not yet searchable, no terms.
    app.db_execute("DELETE FROM shipment_terms WHERE shipment_id = ?1", &[&id]);
    assert_eq!(
        app.db_execute(
            "UPDATE shipments SET searchable = 0, carrier_id = NULL WHERE id = ?1",
            &[&id]
        ),
        1
    );
    let by_carrier = format!("/orgs/{}/shipments?carrierId={}", org.id, id_of(&carrier));
    let path = format!("/orgs/{}/shipments?search=olga", org.id);
    assert!(page_ids(&app.get(&path, &org.token).await.expect(200)).is_empty());
    assert!(page_ids(&app.get(&by_carrier, &org.token).await.expect(200)).is_empty());
    // The worker indexes what it finds unsearchable when it starts (as after an upgrade), then
    // stops looking once a batch comes back short.
    let app = app.restart_with("").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let page = app.get(&path, &org.token).await.expect(200);
        if page_ids(&page) == [id.as_str()] {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never indexed: {page}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        page_ids(&app.get(&by_carrier, &org.token).await.expect(200)),
        [id.as_str()]
    );
    assert_eq!(
        app.db_text(
            "SELECT CAST(searchable AS TEXT) FROM shipments WHERE id = ?1",
            &[&id]
        )
        .as_deref(),
        Some("1")
    );
}

#[tokio::test]
async fn the_workbench_searches_and_scans_tracking_numbers() {
    let shop = Shop::new().await;
    let jane = id_of(&to(&shop, "WEB-1", "Jane Receiver", "jane@shop.example").await);
    let booked = shop.post_empty(&jane, "/book").await.expect(200);
    let number = booked["tracking"]["number"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    to(&shop, "WEB-2", "John Doe", "john@mail.example").await;
    let mut browser = owner(&shop).await;
    let page = browser.get(&app_path(&shop.org, "shipments?q=jane")).await;
    assert_eq!(page.status, 200, "{}", page.text());
    assert!(page.text().contains("WEB-1"), "{}", page.text());
    assert!(!page.text().contains("WEB-2"), "{}", page.text());
    // The row's members come from the stored shipment, the sender's name from its address.
    let sender = shop.address["name"].as_str().unwrap_or_default();
    let product = booked["carrierSettings"]["productId"]
        .as_str()
        .unwrap_or_default();
    for shown in [sender, product, "processing"] {
        assert!(!shown.is_empty() && page.text().contains(shown), "{shown}");
    }
    let link = format!("href=\"/app/{}/shipments/{jane}\"", shop.org.id);
    assert!(page.html.contains(&link), "{}", page.html);
    let page = browser
        .get(&app_path(
            &shop.org,
            &format!("shipments?carrier={}", id_of(&shop.carrier)),
        ))
        .await;
    assert!(page.text().contains("WEB-1") && page.text().contains("WEB-2"));

    let scan = app_path(&shop.org, "scan");
    let form = browser.get(&scan).await;
    let page = browser
        .post(&scan, &[("csrf_token", &csrf(&form)), ("code", &number)])
        .await;
    assert_eq!(page.status, 303, "{}", page.text());
    assert_eq!(
        page.location(),
        app_path(&shop.org, &format!("shipments/{jane}"))
    );
}
