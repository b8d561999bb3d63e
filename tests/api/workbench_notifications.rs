//! Settings → E-mails to receivers and Settings → Returns portal (DESIGN §20, §21): each
//! e-mail event on or off with its templates, saved through the REST operation, a broken
//! template shown at its input, a preview in a chosen language that saves nothing, a member who
//! reads but cannot change; the portal opened with a rule and reasons.

use crate::{
    fixtures::Shop,
    workbench::{app_path, assert_html_page, csrf, error_at, owner, person},
};

#[tokio::test]
async fn an_owner_turns_e_mails_on_previews_one_and_sees_a_broken_template_in_place() {
    let shop = Shop::new().await;
    let mut browser = owner(&shop).await;
    let path = app_path(&shop.org, "settings/notifications");
    let form = browser.get(&path).await;
    assert_html_page(&form, "the e-mail settings page");
    assert!(form.text().contains("Out for delivery"), "{}", form.text());
    let token = csrf(&form);
    let rest = format!("/orgs/{}/notification-settings", shop.org.id);

    // A preview in Danish of the typed (unsaved) subject; nothing is saved by it.
    let preview = browser
        .post(
            &path,
            &[
                ("csrf_token", &token),
                ("booked.enabled", "on"),
                (
                    "booked.subject",
                    "{{ organization.name }} sender {{ shipment.reference }}",
                ),
                ("previewLanguage", "da"),
                ("action", "preview-booked"),
            ],
        )
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text());
    assert!(
        preview.text().contains("sender ORDER-1001"),
        "{}",
        preview.text()
    );
    assert!(preview.text().contains("Hej,"), "{}", preview.text());
    let stored = shop.app.get(&rest, &shop.org.token).await.expect(200);
    assert_eq!(stored["booked"]["enabled"], false);

    // A broken template is shown at its input; nothing changes.
    let broken = browser
        .post(
            &path,
            &[
                ("csrf_token", &token),
                ("delivered.enabled", "on"),
                ("delivered.text", "{% if %}"),
                ("action", "save"),
            ],
        )
        .await;
    assert_eq!(broken.status, 200, "{}", broken.text());
    assert!(error_at(&broken, "delivered.text").contains("not a valid template"));
    assert_eq!(
        shop.app.get(&rest, &shop.org.token).await.expect(200),
        stored
    );

    let saved = browser
        .post(
            &path,
            &[
                ("csrf_token", &token),
                ("booked.enabled", "on"),
                ("delivered.enabled", "on"),
                ("delivered.subject", "Delivered: {{ shipment.reference }}"),
                ("action", "save"),
            ],
        )
        .await;
    assert_eq!(saved.status, 303, "{}", saved.text());
    let stored = shop.app.get(&rest, &shop.org.token).await.expect(200);
    assert_eq!(stored["booked"]["enabled"], true);
    assert_eq!(
        stored["delivered"]["subject"],
        "Delivered: {{ shipment.reference }}"
    );
    assert_eq!(stored["exception"]["enabled"], false);
    let shown = browser.get(&path).await;
    assert!(
        shown.html.contains("Delivered: {{ shipment.reference }}"),
        "{}",
        shown.html
    );

    // A member reads the settings but has no save button.
    let mut member = person(&shop, "member").await;
    let read = member.get(&path).await;
    assert_eq!(read.status, 200);
    assert!(!read.text().contains("Save the e-mail settings"));
}

#[tokio::test]
async fn an_owner_opens_the_returns_portal_with_a_rule_and_reasons() {
    let shop = Shop::new().await;
    let mut browser = owner(&shop).await;
    let path = app_path(&shop.org, "settings/returns-portal");
    let form = browser.get(&path).await;
    assert_html_page(&form, "the returns portal page");
    assert!(
        form.text().contains(&format!("/r/{}", shop.org.slug)),
        "{}",
        form.text()
    );
    let token = csrf(&form);
    let rest = format!("/orgs/{}/returns-portal", shop.org.id);

    // Open without a rule: the problem at the rule's select, nothing saved.
    let refused = browser
        .post(
            &path,
            &[
                ("csrf_token", &token),
                ("enabled", "on"),
                ("reasons", "Too small"),
            ],
        )
        .await;
    assert_eq!(refused.status, 200, "{}", refused.text());
    assert!(error_at(&refused, "shippingRuleId").contains("is required"));
    let closed = shop.app.get(&rest, &shop.org.token).await.expect(200);
    assert_eq!(closed["enabled"], false);

    let (address, carrier) = shop.app.create_address_and_carrier(&shop.org).await;
    let rule = shop
        .app
        .create_rule(
            &shop.org,
            crate::fixtures::rule_body(
                &crate::fixtures::id_of(&carrier),
                &crate::fixtures::id_of(&address),
            ),
        )
        .await;
    let rule_id = crate::fixtures::id_of(&rule);
    let saved = browser
        .post(
            &path,
            &[
                ("csrf_token", &token),
                ("enabled", "on"),
                ("shippingRuleId", &rule_id),
                ("reasons", "Too small\r\n\r\n  Changed my mind  \r\n"),
            ],
        )
        .await;
    assert_eq!(saved.status, 303, "{}", saved.text());
    let stored = shop.app.get(&rest, &shop.org.token).await.expect(200);
    assert_eq!(
        stored,
        serde_json::json!({"enabled": true, "shippingRuleId": rule_id, "reasons": ["Too small", "Changed my mind"]})
    );
}
