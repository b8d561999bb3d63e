//! The returns portal's pages `/r/{slug}` (DESIGN §21): closed is a 404 page; an order is found
//! by its number and e-mail or postcode, and a wrong or unknown one gets the same page; picked
//! lines with reasons become an inbound return linked to the order, booked with the portal's
//! rule, whose label the customer downloads (and gets by e-mail); the same form sent twice books
//! once; more than ten tries a minute from one address get 429.

use mail_parser::MimeHeaders;
use serde_json::{Value, json};

use crate::{
    fixtures::{id_of, order_body, order_channel_body, rule_body},
    helpers::{TestApp, TestOrg},
    mail_sink::Sink,
};

/// An organization with an open portal and order 1001 (2 blue mugs and a teapot ship).
async fn shop(app: &TestApp) -> (TestOrg, Value, Value) {
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let rule = app
        .create_rule(&org, rule_body(&id_of(&carrier), &id_of(&address)))
        .await;
    app.put(
        &format!("/orgs/{}/returns-portal", org.id),
        &org.token,
        json!({"enabled": true, "shippingRuleId": id_of(&rule), "reasons": ["Too small", "Changed my mind"]}),
    )
    .await
    .expect(200);
    app.put(
        &format!("/orgs/{}/branding", org.id),
        &org.token,
        json!({"displayName": "Nordic Mugs", "color": "#0b5fff"}),
    )
    .await
    .expect(200);
    let channel = app
        .create_order_channel(&org, order_channel_body("manual"))
        .await;
    let order = app
        .create_order(&org, order_body(&id_of(&channel), "1001"))
        .await;
    (org, rule, order)
}

/// POSTs a form to the portal: status and page.
async fn post(app: &TestApp, org: &TestOrg, fields: &[(&str, &str)]) -> (u16, String) {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(fields)
        .finish();
    let resp = app
        .client
        .post(app.url(&format!("/r/{}", org.slug)))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept-language", "en")
        .body(body)
        .send()
        .await
        .expect("POST");
    (
        resp.status().as_u16(),
        resp.text().await.unwrap_or_default(),
    )
}

/// The value of the hidden input `name` in `html`.
fn hidden(html: &str, name: &str) -> String {
    let at = html
        .find(&format!("name=\"{name}\" value=\""))
        .unwrap_or_else(|| panic!("no {name} in {html}"));
    let rest = &html[at + name.len() + 15..];
    rest[..rest.find('"').unwrap()].to_string()
}

const NOT_FOUND: &str = "We found no order with these details.";

#[tokio::test]
async fn a_closed_portal_is_a_404_page_and_an_open_one_asks_for_the_order() {
    let app = TestApp::spawn().await;
    let closed = app.create_org();
    let resp = app
        .client
        .get(app.url(&format!("/r/{}", closed.slug)))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 404);
    assert!(
        resp.text()
            .await
            .unwrap()
            .contains("Returns portal not found")
    );
    let resp = app
        .client
        .get(app.url("/r/no-such-shop"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 404);

    let (org, _, _) = shop(&app).await;
    let resp = app
        .client
        .get(app.url(&format!("/r/{}", org.slug)))
        .header("accept-language", "da")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(
        crate::helpers::header(resp.headers(), "cache-control"),
        "no-store"
    );
    let html = resp.text().await.unwrap();
    assert!(html.contains("<html lang=\"da\">"));
    assert!(html.contains("Returnér varer til Nordic Mugs"), "{html}");
    assert!(html.contains("name=\"orderNumber\"") && html.contains("name=\"verification\""));
}

#[tokio::test]
async fn a_wrong_or_unknown_order_gets_the_same_page_and_the_right_one_its_lines() {
    let app = TestApp::spawn().await;
    let (org, _, _) = shop(&app).await;
    let (status, unknown) = post(
        &app,
        &org,
        &[("orderNumber", "9999"), ("verification", "9999")],
    )
    .await;
    assert_eq!(status, 200);
    assert!(unknown.contains(NOT_FOUND), "{unknown}");
    // The right number with a wrong postcode: the very same page (the number echoed back aside).
    let (status, wrong) = post(
        &app,
        &org,
        &[("orderNumber", "1001"), ("verification", "9999")],
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(wrong.replace("1001", "9999"), unknown);
    // The right number with a wrong e-mail, too.
    let (_, wrong) = post(
        &app,
        &org,
        &[("orderNumber", "1001"), ("verification", "x@example.com")],
    )
    .await;
    assert!(wrong.contains(NOT_FOUND));

    // The postcode (spaces and case aside) or the e-mail (any case) finds it.
    for proof in ["8000", " 80 00 ", "JANE.customer@example.com"] {
        let (status, found) = post(
            &app,
            &org,
            &[("orderNumber", "1001"), ("verification", proof)],
        )
        .await;
        assert_eq!(status, 200, "{proof}: {found}");
        assert!(
            found.contains("Choose what you send back"),
            "{proof}: {found}"
        );
        assert!(found.contains("Blue Mug") && found.contains("Teapot"));
        assert!(
            !found.contains("Gift wrapping"),
            "lines that did not ship are not offered"
        );
        assert!(found.contains("<option>Too small</option>"));
    }
}

#[tokio::test]
async fn picked_lines_become_a_booked_return_of_the_order_with_its_label() {
    let sink = Sink::start().await;
    let app = TestApp::spawn_with(&sink.config()).await;
    let (org, rule, order) = shop(&app).await;
    let (_, page) = post(
        &app,
        &org,
        &[("orderNumber", "1001"), ("verification", "8000")],
    )
    .await;
    let return_id = hidden(&page, "returnId");
    assert!(return_id.starts_with("shp_"), "{return_id}");

    // Nothing picked, or a line without its reason: the form again, saying so.
    let form = |quantity: &'static str, reason: &'static str| {
        vec![
            ("step", "return"),
            ("orderNumber", "1001"),
            ("verification", "8000"),
            ("quantity-0", quantity),
            ("reason-0", reason),
            ("quantity-1", "0"),
        ]
    };
    let mut with_id = form("0", "");
    with_id.push(("returnId", &return_id));
    let (status, again) = post(&app, &org, &with_id).await;
    assert_eq!(status, 400);
    assert!(
        again.contains("Choose at least one item and its quantity."),
        "{again}"
    );
    let mut with_id = form("1", "");
    with_id.push(("returnId", &return_id));
    let (status, again) = post(&app, &org, &with_id).await;
    assert_eq!(status, 400);
    assert!(again.contains("Choose a reason for each item you send back."));

    let mut with_id = form("1", "Too small");
    with_id.push(("returnId", &return_id));
    let (status, done) = post(&app, &org, &with_id).await;
    let done = done.replace("&#x2f;", "/");
    assert_eq!(status, 200, "{done}");
    assert!(done.contains("Your return label is ready"), "{done}");
    assert!(done.contains("We have also sent the label to jane.customer@example.com."));
    let label_path = {
        let at = done
            .find(&format!("/r/{}/labels/", org.slug))
            .expect("a label link");
        let rest = &done[at..];
        rest[..rest.find('"').unwrap()].to_string()
    };
    let label = app.client.get(app.url(&label_path)).send().await.unwrap();
    assert_eq!(label.status().as_u16(), 200);
    assert_eq!(
        crate::helpers::header(label.headers(), "content-type"),
        "application/pdf"
    );
    assert!(label.bytes().await.unwrap().starts_with(b"%PDF"));

    // The return: inbound, the order's, booked with the portal's rule, from the customer.
    let ret = app
        .get(
            &format!("/orgs/{}/shipments/{return_id}", org.id),
            &org.token,
        )
        .await
        .expect(200);
    assert_eq!(ret["type"], "inbound");
    assert_eq!(ret["status"], "processing");
    assert_eq!(ret["orderId"], id_of(&order));
    assert_eq!(ret["shippingRuleId"], id_of(&rule));
    assert_eq!(ret["reference"], "RETURN-1001");
    let sender = ret["parties"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["type"] == "sender")
        .unwrap();
    assert_eq!(sender["name"], "Jane Customer");
    let lines = &ret["parcels"][0]["orderLines"];
    assert_eq!(lines.as_array().unwrap().len(), 1);
    assert_eq!(lines[0]["sku"], "MUG-BLUE");
    assert_eq!(lines[0]["quantity"], 1);
    assert_eq!(lines[0]["description"], "Blue Mug (Too small)");
    // The audit log names the portal.
    let audit = app
        .get(&format!("/orgs/{}/audit", org.id), &org.token)
        .await
        .expect(200);
    let portal_entries: Vec<&Value> = audit["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["actor"]["type"] == "returns_portal")
        .collect();
    let operations: Vec<&str> = portal_entries
        .iter()
        .map(|e| e["operation"].as_str().unwrap())
        .collect();
    assert_eq!(
        operations,
        ["book_shipment", "create_return_shipment"],
        "{audit}"
    );

    // The label goes by e-mail too.
    let mail = sink.wait_for(1).await.remove(0);
    assert_eq!(mail.to, vec!["<jane.customer@example.com>"]);
    assert_eq!(mail.subject(), "Your return label from Nordic Mugs");
    let parsed = mail.parsed();
    let attachment = parsed.attachment(0).expect("the label attached");
    assert_eq!(
        attachment.attachment_name(),
        Some("return-label-RETURN-1001.pdf")
    );
    assert!(attachment.contents().starts_with(b"%PDF"));

    // The same form again books nothing more and shows the same label.
    let mut with_id = form("1", "Too small");
    with_id.push(("returnId", &return_id));
    let (status, again) = post(&app, &org, &with_id).await;
    assert_eq!(status, 200);
    assert!(again.replace("&#x2f;", "/").contains(&label_path));
    let list = app
        .get(
            &format!("/orgs/{}/shipments?orderId={}", org.id, id_of(&order)),
            &org.token,
        )
        .await
        .expect(200);
    assert_eq!(list["total"], 1, "{list}");
}

#[tokio::test]
async fn more_than_ten_tries_a_minute_from_one_address_get_429() {
    let app = TestApp::spawn().await;
    let (org, _, _) = shop(&app).await;
    for n in 0..10 {
        let (status, _) = post(
            &app,
            &org,
            &[("orderNumber", "nope"), ("verification", "1")],
        )
        .await;
        assert_eq!(status, 200, "try {n}");
    }
    let body = "orderNumber=1001&verification=8000";
    let resp = app
        .client
        .post(app.url(&format!("/r/{}", org.slug)))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 429);
    let wait: u64 = crate::helpers::header(resp.headers(), "retry-after")
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait));
    assert!(resp.text().await.unwrap().contains("Too many tries."));
}
