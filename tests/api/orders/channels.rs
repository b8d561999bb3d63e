//! Order channels: /orgs/{orgId}/order-channels (DESIGN §8, §16).

use serde_json::{Value, json};

use crate::{
    fixtures::{
        assert_id, assert_invalid, assert_list_total, assert_timestamp, id_of, order_body,
        order_channel_body, page_ids, with, without,
    },
    helpers::{Reply, TestApp, TestOrg},
};

fn channels(org: &TestOrg) -> String {
    format!("/orgs/{}/order-channels", org.id)
}

async fn post_channel(app: &TestApp, org: &TestOrg, body: Value) -> Reply {
    app.post(&channels(org), &org.token, body).await
}

/// Asserts that creating `body` is 400 naming `field` and created nothing.
async fn assert_channel_rejected(app: &TestApp, org: &TestOrg, body: Value, field: &str) {
    assert_invalid(post_channel(app, org, body).await, field);
    assert_list_total(app, &channels(org), &org.token, 0).await;
}

#[tokio::test]
async fn creating_a_manual_channel_returns_201_without_webhook_details() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let channel = post_channel(&app, &org, order_channel_body("manual"))
        .await
        .expect(201);
    assert_id(&channel["id"], "och");
    assert_eq!(channel["name"], "Phone Orders");
    assert_eq!(channel["type"], "manual");
    assert_eq!(channel["orgId"], org.id);
    assert!(channel["webhookUrl"].is_null(), "{channel}");
    assert!(channel.get("webhookSecret").is_none(), "{channel}");
    assert_timestamp(&channel["createdAt"]);
    assert_timestamp(&channel["updatedAt"]);
}

#[tokio::test]
async fn a_shopify_channel_without_a_host_name_as_shop_domain_is_400() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let body = without(order_channel_body("shopify"), "shopDomain");
    assert_channel_rejected(&app, &org, body, "shopDomain").await;
    for domain in [
        "",
        "https://my-store.myshopify.com",
        "my store.myshopify.com",
    ] {
        let body = with(order_channel_body("shopify"), "shopDomain", json!(domain));
        assert_channel_rejected(&app, &org, body, "shopDomain").await;
    }
}

#[tokio::test]
async fn a_channel_type_outside_manual_and_shopify_is_400() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    for kind in ["amazon", "", "Manual"] {
        let body = with(order_channel_body("manual"), "type", json!(kind));
        assert_channel_rejected(&app, &org, body, "type").await;
    }
    assert_channel_rejected(
        &app,
        &org,
        without(order_channel_body("manual"), "type"),
        "type",
    )
    .await;
}

#[tokio::test]
async fn a_shopify_channel_gets_a_webhook_url_and_a_secret_shown_only_at_creation() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let created = post_channel(&app, &org, order_channel_body("shopify"))
        .await
        .expect(201);
    let id = id_of(&created);
    assert_id(&created["id"], "och");
    assert_eq!(created["type"], "shopify");
    assert_eq!(created["shopDomain"], "my-store.myshopify.com");
    assert_eq!(
        created["webhookUrl"],
        format!("{}/channels/{id}/shopify/orders", app.base_url)
    );
    let secret = created["webhookSecret"].as_str().unwrap_or_default();
    assert!(secret.len() >= 16, "a generated secret: {created}");

    let got = app
        .get(&format!("{}/{id}", channels(&org)), &org.token)
        .await;
    assert!(!got.text.contains(secret), "GET shows the secret");
    let got = got.expect(200);
    assert!(got["webhookSecret"].is_null(), "{got}");
    assert_eq!(got, without(created.clone(), "webhookSecret"));

    let list = app.get(&channels(&org), &org.token).await;
    assert!(!list.text.contains(secret), "the list shows the secret");
    let list = list.expect(200);
    assert_eq!(list["data"][0], got);
}

#[tokio::test]
async fn each_shopify_channel_gets_its_own_secret() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let a = app
        .create_order_channel(&org, order_channel_body("shopify"))
        .await;
    let b = app
        .create_order_channel(&org, order_channel_body("shopify"))
        .await;
    assert!(a["webhookSecret"].is_string());
    assert_ne!(a["webhookSecret"], b["webhookSecret"]);
}

#[tokio::test]
async fn a_given_webhook_secret_is_kept() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let secret = "shpss_0123456789abcdef0123456789abcdef";
    let body = with(
        order_channel_body("shopify"),
        "webhookSecret",
        json!(secret),
    );
    let created = app.create_order_channel(&org, body).await;
    assert_eq!(created["webhookSecret"], secret);
}

#[tokio::test]
async fn order_channels_are_listed_newest_first_in_pages() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let mut ids = Vec::new();
    for kind in ["manual", "shopify", "manual"] {
        ids.push(id_of(
            &app.create_order_channel(&org, order_channel_body(kind))
                .await,
        ));
    }
    ids.reverse();
    let mut seen = Vec::new();
    for page in 1..=2 {
        let list = app
            .get(
                &format!("{}?limit=2&page={page}", channels(&org)),
                &org.token,
            )
            .await
            .expect(200);
        assert_eq!(list["total"], 3);
        assert_eq!(list["page"], page);
        assert_eq!(list["limit"], 2);
        assert_eq!(list["totalPages"], 2);
        seen.extend(page_ids(&list));
    }
    assert_eq!(seen, ids, "newest first across pages");
    let all = app.get(&channels(&org), &org.token).await.expect(200);
    assert_eq!(all["limit"], 20);
    assert_eq!(all["totalPages"], 1);
    assert_invalid(
        app.get(&format!("{}?limit=0", channels(&org)), &org.token)
            .await,
        "limit",
    );
}

#[tokio::test]
async fn getting_a_manual_channel_returns_what_was_created() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let created = app
        .create_order_channel(&org, order_channel_body("manual"))
        .await;
    let got = app
        .get(
            &format!("{}/{}", channels(&org), id_of(&created)),
            &org.token,
        )
        .await
        .expect(200);
    assert_eq!(got, created);
}

#[tokio::test]
async fn getting_an_unknown_channel_is_404() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    app.get(
        &format!("{}/och_01ARZ3NDEKTSV4RRFFQ69G5FAV", channels(&org)),
        &org.token,
    )
    .await
    .problem(404, "not_found");
}

#[tokio::test]
async fn deleting_a_channel_answers_a_message_then_it_is_404() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let channel = app
        .create_order_channel(&org, order_channel_body("shopify"))
        .await;
    let path = format!("{}/{}", channels(&org), id_of(&channel));
    let reply = app.delete(&path, &org.token).await.expect(200);
    assert!(
        reply["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{reply}"
    );
    app.get(&path, &org.token).await.problem(404, "not_found");
    app.delete(&path, &org.token)
        .await
        .problem(404, "not_found");
    assert_list_total(&app, &channels(&org), &org.token, 0).await;
}

#[tokio::test]
async fn deleting_a_channel_with_orders_is_409() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let channel = app
        .create_order_channel(&org, order_channel_body("manual"))
        .await;
    let order = app
        .create_order(&org, order_body(&id_of(&channel), "1001"))
        .await;
    let path = format!("{}/{}", channels(&org), id_of(&channel));
    app.delete(&path, &org.token).await.problem(409, "conflict");
    app.get(&path, &org.token).await.expect(200);
    // Once its orders are gone, the channel may go.
    app.delete(
        &format!("/orgs/{}/orders/{}", org.id, id_of(&order)),
        &org.token,
    )
    .await
    .expect(200);
    app.delete(&path, &org.token).await.expect(200);
}

#[tokio::test]
async fn another_orgs_token_cannot_read_list_or_delete_a_channel() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let other = app.create_org();
    let channel = app
        .create_order_channel(&org, order_channel_body("shopify"))
        .await;
    let id = id_of(&channel);
    for org_id in [&org.id, &other.id] {
        let path = format!("/orgs/{org_id}/order-channels/{id}");
        app.get(&path, &other.token).await.problem(404, "not_found");
        app.delete(&path, &other.token)
            .await
            .problem(404, "not_found");
    }
    app.get(&channels(&org), &other.token)
        .await
        .problem(404, "not_found");
    app.post(&channels(&org), &other.token, order_channel_body("manual"))
        .await
        .problem(404, "not_found");
    assert_list_total(&app, &channels(&other), &other.token, 0).await;
    assert_list_total(&app, &channels(&org), &org.token, 1).await;
}
