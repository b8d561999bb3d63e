//! E-mail to receivers (DESIGN §21) through a real SMTP conversation with a local sink: the
//! booked, out-for-delivery and delivered messages in the receiver's language with the tracking
//! link, both parts and the unsubscribe headers; a server that refuses mail is retried and never
//! fails the booking; a refusal for good is not retried; the unsubscribe page (and one-click
//! POST) stops the organization's mail to that address; the notification log says it all.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{
    fixtures::{id_of, rule_body, shipment_body},
    helpers::{TestApp, TestOrg},
    mail_sink::Sink,
};

/// Turns the given events' e-mails on, and names the shop.
async fn turn_on(app: &TestApp, org: &TestOrg, events: &[&str]) {
    let mut settings = json!({});
    for event in events {
        settings[*event] = json!({"enabled": true});
    }
    app.put(
        &format!("/orgs/{}/notification-settings", org.id),
        &org.token,
        settings,
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
}

/// A pending shipment to a receiver in Sweden at `email`; `change` edits its body first.
async fn shipment(
    app: &TestApp,
    org: &TestOrg,
    email: &str,
    change: impl FnOnce(&mut Value),
) -> String {
    let (address, carrier) = app.create_address_and_carrier(org).await;
    let mut body = shipment_body(&id_of(&address), &id_of(&carrier));
    body["parties"][0]["email"] = json!(email);
    body["parties"][0]["city"] = json!("Stockholm");
    body["parties"][0]["postalCode"] = json!("11122");
    body["parties"][0]["countryCode"] = json!("SE");
    change(&mut body);
    id_of(&app.create_shipment(org, body).await)
}

async fn track(app: &TestApp, org: &TestOrg, id: &str, status: &str) {
    app.post(
        &format!("/orgs/{}/shipments/{id}/tracking-events", org.id),
        &org.token,
        json!({"status": status}),
    )
    .await
    .expect(200);
}

fn log_path(org: &TestOrg, id: &str) -> String {
    format!("/orgs/{}/shipments/{id}/notifications", org.id)
}

/// Reads the shipment's notification log until `done` holds for it (up to 15 s).
async fn log_until(app: &TestApp, org: &TestOrg, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let log = app.get(&log_path(org, id), &org.token).await.expect(200);
        if done(&log) {
            return log;
        }
        assert!(Instant::now() < deadline, "the log never got there: {log}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

#[tokio::test]
async fn booked_out_for_delivery_and_delivered_reach_the_receiver_in_their_language() {
    let sink = Sink::start().await;
    let app = TestApp::spawn_with(&sink.config()).await;
    let org = app.create_org();
    turn_on(&app, &org, &["booked", "outForDelivery", "delivered"]).await;
    let id = shipment(&app, &org, "kund@example.se", |_| {}).await;
    let booked = app.book_shipment(&org, &id).await;
    let tracking_url = booked["trackingUrl"]
        .as_str()
        .expect("trackingUrl")
        .to_string();

    let mail = sink.wait_for(1).await.remove(0);
    assert_eq!(mail.to, vec!["<kund@example.se>"]);
    assert_eq!(mail.from, "<noreply@shop.example>");
    // Swedish, for a receiver in Sweden; the shop's name as the sender's.
    assert_eq!(
        mail.subject(),
        "Din order REF-1001 från Nordic Mugs är på väg"
    );
    assert_eq!(
        mail.header("From"),
        "\"Nordic Mugs\" <noreply@shop.example>"
    );
    assert!(mail.text().contains(&tracking_url), "{}", mail.text());
    assert!(
        mail.html().contains(&format!("href=\"{tracking_url}\"")),
        "{}",
        mail.html()
    );
    assert!(mail.html().contains("<html lang=\"sv\">"));
    let unsubscribe = mail.header("List-Unsubscribe");
    let prefix = format!("<{}/u/ntf_", app.url(""));
    assert!(unsubscribe.starts_with(&prefix), "{unsubscribe}");
    assert_eq!(
        mail.header("List-Unsubscribe-Post"),
        "List-Unsubscribe=One-Click"
    );
    assert_eq!(mail.header("Auto-Submitted"), "auto-generated");
    let link = unsubscribe.trim_matches(['<', '>']);
    assert!(
        mail.text().contains(link),
        "the text has the unsubscribe link too"
    );

    // Moving along in transit tells the receiver nothing; out for delivery and delivered do.
    track(&app, &org, &id, "in_transit").await;
    track(&app, &org, &id, "out_for_delivery").await;
    track(&app, &org, &id, "delivered").await;
    let mails = sink.wait_for(3).await;
    assert_eq!(mails.len(), 3, "nothing for in_transit");
    // Messages go out side by side: they may arrive in either order.
    let mut subjects: Vec<String> = mails[1..].iter().map(|m| m.subject()).collect();
    subjects.sort();
    assert_eq!(
        subjects,
        [
            "Ditt paket från Nordic Mugs har levererats",
            "Ditt paket från Nordic Mugs kommer i dag"
        ]
    );

    let log = log_until(&app, &org, &id, |log| {
        log["data"]
            .as_array()
            .is_some_and(|d| d.iter().all(|n| n["status"] == "sent"))
    })
    .await;
    assert_eq!(log["total"], 3);
    let events: Vec<&str> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        events,
        ["delivered", "out_for_delivery", "booked"],
        "newest first"
    );
    let first = &log["data"][2];
    assert_eq!(first["to"], "kund@example.se");
    assert_eq!(first["language"], "sv");
    assert_eq!(first["attempts"], 1);
    assert_eq!(first["error"], Value::Null);
    assert!(first["sentAt"].is_string() && first["id"].as_str().unwrap().starts_with("ntf_"));
}

#[tokio::test]
async fn the_shipments_language_and_the_organizations_templates_decide_the_words() {
    let sink = Sink::start().await;
    let app = TestApp::spawn_with(&sink.config()).await;
    let org = app.create_org();
    turn_on(&app, &org, &["booked"]).await;
    app.put(
        &format!("/orgs/{}/notification-settings", org.id),
        &org.token,
        json!({"booked": {"enabled": true, "subject": "{{ organization.name }}: {{ shipment.reference }} ({{ language }})"}}),
    )
    .await
    .expect(200);
    let id = shipment(&app, &org, "kunde@example.de", |b| {
        b["language"] = json!("de")
    })
    .await;
    app.book_shipment(&org, &id).await;
    let mail = sink.wait_for(1).await.remove(0);
    assert_eq!(mail.subject(), "Nordic Mugs: REF-1001 (de)");
    // The text is the built-in German one.
    assert!(mail.text().starts_with("Hallo,"), "{}", mail.text());
}

#[tokio::test]
async fn a_rule_with_email_notification_turns_mail_on_and_no_address_means_no_mail() {
    let sink = Sink::start().await;
    let app = TestApp::spawn_with(&sink.config()).await;
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let mut rule = rule_body(&id_of(&carrier), &id_of(&address));
    rule["emailNotification"] = json!(true);
    let rule = app.create_rule(&org, rule).await;

    // Settings off, no rule: nothing is queued.
    let quiet = shipment(&app, &org, "quiet@example.se", |_| {}).await;
    app.book_shipment(&org, &quiet).await;
    // The rule asks for e-mail.
    let ruled = shipment(&app, &org, "ruled@example.se", |_| {}).await;
    app.post(
        &format!("/orgs/{}/shipments/{ruled}/apply-shipping-rule", org.id),
        &org.token,
        json!({"shippingRuleId": id_of(&rule)}),
    )
    .await
    .expect(200);
    app.book_shipment(&org, &ruled).await;
    // The rule, but no address to write to.
    let silent = shipment(&app, &org, "x@example.se", |b| {
        b["parties"][0].as_object_mut().unwrap().remove("email");
    })
    .await;
    app.post(
        &format!("/orgs/{}/shipments/{silent}/apply-shipping-rule", org.id),
        &org.token,
        json!({"shippingRuleId": id_of(&rule)}),
    )
    .await
    .expect(200);
    app.book_shipment(&org, &silent).await;

    let mails = sink.wait_for(1).await;
    assert_eq!(mails[0].to, vec!["<ruled@example.se>"]);
    let sent = log_until(&app, &org, &ruled, |log| log["data"][0]["status"] == "sent").await;
    assert_eq!(sent["total"], 1);
    for id in [&quiet, &silent] {
        let log = app.get(&log_path(&org, id), &org.token).await.expect(200);
        assert_eq!(log["total"], 0, "{log}");
    }
    assert_eq!(sink.received().len(), 1);
}

#[tokio::test]
async fn a_refusing_server_is_retried_and_never_fails_the_booking() {
    let sink = Sink::start().await;
    sink.refuse(451);
    let app = TestApp::spawn_with(&sink.config()).await;
    let org = app.create_org();
    turn_on(&app, &org, &["booked"]).await;
    let id = shipment(&app, &org, "kund@example.se", |_| {}).await;
    let booked = app.book_shipment(&org, &id).await;
    assert_eq!(booked["status"], "processing");

    let waiting = log_until(&app, &org, &id, |log| {
        log["data"][0]["attempts"].as_u64().unwrap_or(0) >= 2
    })
    .await;
    let message = &waiting["data"][0];
    assert_eq!(message["status"], "queued", "{message}");
    assert!(
        message["error"]
            .as_str()
            .unwrap_or_default()
            .contains("451"),
        "{message}"
    );
    assert_eq!(sink.received().len(), 0);

    sink.refuse(0);
    let sent = log_until(&app, &org, &id, |log| log["data"][0]["status"] == "sent").await;
    assert!(sent["data"][0]["attempts"].as_u64().unwrap() >= 3, "{sent}");
    assert_eq!(sink.wait_for(1).await.len(), 1);
}

#[tokio::test]
async fn a_refusal_for_good_is_not_retried_and_no_server_is_said_in_the_log() {
    let sink = Sink::start().await;
    sink.refuse(550);
    let app = TestApp::spawn_with(&sink.config()).await;
    let org = app.create_org();
    turn_on(&app, &org, &["booked"]).await;
    let id = shipment(&app, &org, "kund@example.se", |_| {}).await;
    app.book_shipment(&org, &id).await;
    let failed = log_until(&app, &org, &id, |log| log["data"][0]["status"] == "failed").await;
    assert_eq!(failed["data"][0]["attempts"], 1);
    assert!(failed["data"][0]["error"].as_str().unwrap().contains("550"));

    // Without [smtp] the message is logged as failed, with the reason.
    let bare = TestApp::spawn().await;
    let org = bare.create_org();
    turn_on(&bare, &org, &["booked"]).await;
    let id = shipment(&bare, &org, "kund@example.se", |_| {}).await;
    bare.book_shipment(&org, &id).await;
    let failed = log_until(&bare, &org, &id, |log| log["data"][0]["status"] == "failed").await;
    assert_eq!(
        failed["data"][0]["error"],
        "no mail server is configured ([smtp] url)"
    );
}

#[tokio::test]
async fn the_unsubscribe_page_stops_the_organizations_mail_to_that_address() {
    let sink = Sink::start().await;
    let app = TestApp::spawn_with(&sink.config()).await;
    let org = app.create_org();
    turn_on(&app, &org, &["booked", "delivered"]).await;
    let id = shipment(&app, &org, "Kund@Example.se", |b| {
        b["language"] = json!("en")
    })
    .await;
    app.book_shipment(&org, &id).await;
    let mail = sink.wait_for(1).await.remove(0);
    let link = mail
        .header("List-Unsubscribe")
        .trim_matches(['<', '>'])
        .to_string();

    // Opening the page asks; it does not unsubscribe.
    let page = app.client.get(&link).send().await.expect("GET");
    assert_eq!(page.status().as_u16(), 200);
    assert_eq!(
        crate::helpers::header(page.headers(), "cache-control"),
        "no-store"
    );
    let html = page.text().await.unwrap();
    assert!(
        html.contains("Stop e-mails about deliveries from Nordic Mugs to Kund@Example.se?"),
        "{html}"
    );
    assert!(html.contains("<form method=\"post\""));
    // A link with a forged tag is no page.
    let forged = format!("{}x", &link[..link.len() - 1]);
    let page = app.client.get(&forged).send().await.expect("GET");
    assert_eq!(page.status().as_u16(), 404);

    // A mail client's one-click POST (RFC 8058).
    let done = app
        .client
        .post(&link)
        .header("content-type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .expect("POST");
    assert_eq!(done.status().as_u16(), 200);
    let html = done.text().await.unwrap();
    assert!(
        html.contains("gets no more e-mails about deliveries from Nordic Mugs"),
        "{html}"
    );

    // The next message to that address (in any case) is not sent.
    track(&app, &org, &id, "delivered").await;
    let log = log_until(&app, &org, &id, |log| log["data"][0]["status"] == "failed").await;
    assert_eq!(log["data"][0]["event"], "delivered");
    assert_eq!(log["data"][0]["error"], "the receiver unsubscribed");
    assert_eq!(sink.received().len(), 1);
    // Opening the page again says it is done.
    let html = app
        .client
        .get(&link)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(html.contains("gets no more e-mails"), "{html}");
}

#[tokio::test]
async fn the_log_is_the_organizations_own() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let other = app.create_org();
    let id = shipment(&app, &org, "kund@example.se", |_| {}).await;
    app.get(&log_path(&other, &id), &other.token)
        .await
        .problem(404, "not_found");
    let reader = app.create_token(&org, "read:orgs");
    app.get(&log_path(&org, &id), &reader)
        .await
        .problem(403, "insufficient_scope");
    let log = app.get(&log_path(&org, &id), &org.token).await.expect(200);
    assert_eq!(
        log,
        json!({"data": [], "total": 0, "page": 1, "limit": 20, "totalPages": 0})
    );
}
