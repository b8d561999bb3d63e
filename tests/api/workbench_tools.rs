//! The workbench's tools on Settings (DESIGN §20): "Print a test page" under each printer and
//! "Replay" on each delivery of a webhook's log, each named for what it acts on, shown only to a
//! role that may use them, and answered with a notice once the work is queued.

use std::time::Duration;

use serde_json::{Value, json};

use crate::{
    browser::Page,
    fixtures::{Shop, id_of, order_body, order_channel_body},
    printers::{LOOPBACK, RawPrinter, create_printer, jobs_until},
    receiver::Receiver,
    workbench::{app_path, assert_html_page, csrf, owner, person},
};

/// The `aria-label`s of the page's buttons that start with `prefix`.
fn labelled(page: &Page, prefix: &str) -> Vec<String> {
    page.html
        .split("aria-label=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter(|label| label.starts_with(prefix))
        .map(str::to_string)
        .collect()
}

#[tokio::test]
async fn an_owner_prints_a_test_page_and_replays_a_delivery_from_settings() {
    let shop = Shop::with_config(&format!(
        "{LOOPBACK}[webhooks]\nallow_private_targets = true\nretry_scale = 0.00001\n"
    ))
    .await;
    let mut browser = owner(&shop).await;

    // Printers: the button names its printer; the job is queued, listed and printed.
    let socket = RawPrinter::start().await;
    let printer = create_printer(
        &shop,
        json!({"name": "Desk", "kind": "raw", "address": format!("127.0.0.1:{}", socket.port), "format": "zpl"}),
    )
    .await;
    let path = app_path(&shop.org, "settings/printers");
    let page = browser.get(&path).await;
    assert_html_page(&page, &path);
    assert_eq!(
        labelled(&page, "Print a test page"),
        ["Print a test page on Desk"]
    );
    let pressed = browser
        .post(
            &path,
            &[
                ("csrf_token", &csrf(&page)),
                ("action", "print_test_page"),
                ("id", &id_of(&printer)),
            ],
        )
        .await;
    assert_eq!(
        (pressed.status, pressed.location()),
        (303, path.clone()),
        "{}",
        pressed.text()
    );
    let jobs = jobs_until(&shop, &id_of(&printer), |jobs| {
        jobs.first().is_some_and(|j| j["status"] == "printed")
    })
    .await;
    assert_eq!(jobs[0]["kind"], "test_page", "{jobs:?}");
    assert!(String::from_utf8_lossy(&socket.jobs()[0]).starts_with("^XA"));
    let after = browser.get(&path).await;
    assert!(
        after
            .text()
            .contains(&format!("A test page is queued (job {})", id_of(&jobs[0]))),
        "{}",
        after.text()
    );
    assert!(
        after.text().contains("Test page printed"),
        "{}",
        after.text()
    );

    // Webhooks: eight failed attempts, each with a Replay button naming it; a test send has none.
    let receiver = Receiver::start().await;
    receiver.answer("/erp", &[500; 8]);
    let webhook = shop
        .app
        .post(
            &format!("/orgs/{}/webhooks", shop.org.id),
            &shop.org.token,
            json!({"name": "ERP", "url": receiver.url("/erp"), "events": ["order.created"]}),
        )
        .await
        .expect(201);
    let channel = shop
        .app
        .create_order_channel(&shop.org, order_channel_body("manual"))
        .await;
    shop.app
        .create_order(&shop.org, order_body(&id_of(&channel), "W-1"))
        .await;
    let failed = receiver.wait_for("/erp", 8).await;
    let log = log_of(&shop, &webhook, 8).await;
    shop.app
        .post(
            &format!("/orgs/{}/webhooks/{}/test", shop.org.id, id_of(&webhook)),
            &shop.org.token,
            json!({}),
        )
        .await
        .expect(200);
    let path = app_path(&shop.org, "settings/webhooks");
    let page = browser.get(&path).await;
    assert_html_page(&page, &path);
    let replays = labelled(&page, "Replay ");
    assert_eq!(replays.len(), 8, "none for the test delivery: {replays:?}");
    assert_eq!(replays[0], {
        // Times read as "2026-11-26 16:15 UTC" on the pages.
        let at = log[0]["createdAt"].as_str().unwrap();
        format!(
            "Replay order.created (attempt 8 at {} {} UTC)",
            &at[..10],
            &at[11..16]
        )
    });
    let pressed = browser
        .post(
            &path,
            &[
                ("csrf_token", &csrf(&page)),
                ("action", "replay_webhook_delivery"),
                ("id", &id_of(&log[0])),
                ("webhook", &id_of(&webhook)),
            ],
        )
        .await;
    assert_eq!(
        (pressed.status, pressed.location()),
        (303, path.clone()),
        "{}",
        pressed.text()
    );
    // The ninth was the test send.
    let again = receiver.wait_for("/erp", 10).await.remove(9);
    assert_eq!(again.answered, 200);
    assert_eq!(again.header("webhook-id"), failed[0].header("webhook-id"));
    let after = browser.get(&path).await;
    let event = log[0]["eventId"].as_str().unwrap();
    assert!(
        after.text().contains(&format!(
            "The order.created event {event} is queued to be sent again"
        )),
        "{}",
        after.text()
    );
}

/// A webhook's delivery log once it holds `n` attempts.
async fn log_of(shop: &Shop, webhook: &Value, n: usize) -> Vec<Value> {
    let path = format!(
        "/orgs/{}/webhooks/{}/deliveries",
        shop.org.id,
        id_of(webhook)
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let log = shop.app.get(&path, &shop.org.token).await.expect(200);
        let data = log["data"].as_array().cloned().unwrap_or_default();
        if data.len() >= n || std::time::Instant::now() > deadline {
            return data;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_member_sees_neither_button_and_cannot_press_them() {
    let shop = Shop::with_config(LOOPBACK).await;
    let printer = create_printer(
        &shop,
        json!({"name": "Desk", "kind": "raw", "address": "10.0.0.1:9100", "format": "pdf"}),
    )
    .await;
    let mut member = person(&shop, "member").await;
    let path = app_path(&shop.org, "settings/printers");
    let page = member.get(&path).await;
    assert_html_page(&page, "a member's printers");
    assert!(
        page.text().contains("Print jobs of Desk"),
        "{}",
        page.text()
    );
    assert!(
        !page.text().contains("Print a test page"),
        "{}",
        page.text()
    );
    let pressed = member
        .post(
            &path,
            &[
                ("csrf_token", &csrf(&page)),
                ("action", "print_test_page"),
                ("id", &id_of(&printer)),
            ],
        )
        .await;
    assert_eq!(pressed.status, 403, "{}", pressed.text());
    let jobs = shop
        .app
        .get(
            &format!("/orgs/{}/printers/{}/jobs", shop.org.id, id_of(&printer)),
            &shop.org.token,
        )
        .await
        .expect(200);
    assert_eq!(jobs["total"], 0);
    // Webhooks are not a member's at all: the page is refused, so no Replay either.
    let hooks = member.get(&app_path(&shop.org, "settings/webhooks")).await;
    assert_eq!(hooks.status, 403, "{}", hooks.text());
    assert!(!hooks.text().contains("Replay"));
}

#[tokio::test]
async fn an_admin_is_not_offered_what_only_an_owner_may_do_to_members() {
    let shop = Shop::new().await;
    let members = shop
        .app
        .get(&format!("/orgs/{}/members", shop.org.id), &shop.org.token)
        .await
        .expect(200);
    let owner_id = members["data"]
        .as_array()
        .and_then(|d| d.iter().find(|m| m["role"] == "owner"))
        .and_then(|m| m["userId"].as_str().or(m["id"].as_str()))
        .unwrap_or_else(|| panic!("no owner in {members}"))
        .to_string();
    let mut admin = person(&shop, "admin").await;
    let page = admin.get(&app_path(&shop.org, "settings/members")).await;
    assert_html_page(&page, "an admin's members page");
    assert!(
        !page.html.contains(&format!("value=\"{owner_id}\"")),
        "the owner can be changed: {}",
        page.html
    );
    assert!(!page.options("role").is_empty());
    assert!(
        !page.html.contains("value=\"owner\""),
        "owner is offered: {}",
        page.html
    );

    // The owner is offered all three roles.
    let mut browser = owner(&shop).await;
    let page = browser.get(&app_path(&shop.org, "settings/members")).await;
    assert!(page.options("role").contains(&"owner".to_string()));
}
