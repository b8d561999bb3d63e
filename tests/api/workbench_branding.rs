//! Settings → Branding (DESIGN §20, §21): the name, colour and logo changed through a form that
//! uploads the file, problems shown in place, a member reading but not changing it.

use base64::{Engine, engine::general_purpose::STANDARD};

use crate::{
    branding::PNG,
    fixtures::Shop,
    workbench::{app_path, assert_html_page, assert_refused_for, csrf, error_at, owner, person},
};

#[tokio::test]
async fn an_owner_sets_the_name_colour_and_logo_and_sees_problems_in_place() {
    let shop = Shop::new().await;
    let mut browser = owner(&shop).await;
    let path = app_path(&shop.org, "settings/branding");
    let form = browser.get(&path).await;
    assert_html_page(&form, "the branding page");
    assert!(form.text().contains("No logo yet"), "{}", form.text());
    let token = csrf(&form);
    let png = STANDARD.decode(PNG).unwrap_or_default();

    let page = browser
        .post_multipart(
            &path,
            &[
                ("csrf_token", &token),
                ("displayName", "Acme Shop"),
                ("color", "#1a73e8"),
            ],
            &[("logo", "logo.png", "image/png", &png)],
        )
        .await;
    assert_eq!(page.status, 303, "{}", page.text());
    let stored = shop
        .app
        .get(&format!("/orgs/{}/branding", shop.org.id), &shop.org.token)
        .await
        .expect(200);
    assert_eq!(stored["displayName"], "Acme Shop");
    assert_eq!(stored["color"], "#1a73e8");
    assert_eq!(stored["logo"], PNG);
    let shown = browser.get(&path).await;
    assert!(
        shown.html.contains("settings/branding/logo?v="),
        "{}",
        shown.html
    );
    let logo = browser
        .get(&app_path(&shop.org, "settings/branding/logo"))
        .await;
    assert_eq!(logo.header("content-type"), "image/png");

    // No file chosen keeps the logo; problems are shown at their inputs and nothing changes.
    let page = browser
        .post_multipart(
            &path,
            &[
                ("csrf_token", &token),
                ("displayName", "  "),
                ("color", "blue"),
            ],
            &[("logo", "notes.txt", "text/plain", b"not an image")],
        )
        .await;
    assert_eq!(page.status, 200, "{}", page.text());
    assert!(!error_at(&page, "displayName").is_empty());
    assert!(!error_at(&page, "color").is_empty());
    assert!(!error_at(&page, "logo").is_empty());
    let kept = shop
        .app
        .get(&format!("/orgs/{}/branding", shop.org.id), &shop.org.token)
        .await
        .expect(200);
    assert_eq!(kept["displayName"], "Acme Shop");

    let page = browser
        .post_multipart(
            &path,
            &[
                ("csrf_token", &token),
                ("displayName", "Acme"),
                ("removeLogo", "on"),
            ],
            &[("logo", "", "application/octet-stream", b"")],
        )
        .await;
    assert_eq!(page.status, 303, "{}", page.text());
    let removed = shop
        .app
        .get(&format!("/orgs/{}/branding", shop.org.id), &shop.org.token)
        .await
        .expect(200);
    assert_eq!(removed["logo"], serde_json::Value::Null);
    assert_eq!(removed["color"], "#1a73e8");

    // Without the CSRF token nothing changes.
    let page = browser
        .post_multipart(&path, &[("displayName", "Forged")], &[])
        .await;
    assert_eq!(page.status, 403, "{}", page.text());
}

#[tokio::test]
async fn a_member_reads_the_branding_but_may_not_change_it() {
    let shop = Shop::new().await;
    let mut member = person(&shop, "member").await;
    let path = app_path(&shop.org, "settings/branding");
    let page = member.get(&path).await;
    assert_html_page(&page, "a member's branding page");
    assert!(!page.html.contains("Save the branding"));
    let refused = member
        .post_multipart(
            &path,
            &[("csrf_token", &csrf(&page)), ("displayName", "Mine now")],
            &[],
        )
        .await;
    assert_refused_for(&refused, "admin", "a member changing the branding");
}
