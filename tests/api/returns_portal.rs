//! The returns portal's settings (DESIGN §21): closed by default; opening it needs a shipping
//! rule of the organization, which then cannot be deleted; reasons are checked and trimmed.

use serde_json::json;

use crate::fixtures::{id_of, rule_body};
use crate::helpers::TestApp;

#[tokio::test]
async fn the_portal_opens_with_a_rule_of_the_organization_and_keeps_it() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let stranger = app.create_org();
    let path = format!("/orgs/{}/returns-portal", org.id);
    assert_eq!(
        app.get(&path, &org.token).await.expect(200),
        json!({"enabled": false, "shippingRuleId": null, "reasons": []})
    );

    let refused = app
        .put(
            &path,
            &org.token,
            json!({"enabled": true, "reasons": ["Too small", " too small ", ""]}),
        )
        .await
        .problem(400, "validation_failed");
    let fields: Vec<&str> = refused["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["field"].as_str())
        .collect();
    assert_eq!(
        fields,
        ["shippingRuleId", "reasons[2]", "reasons[1]"],
        "{refused}"
    );

    let (address, carrier) = app.create_address_and_carrier(&stranger).await;
    let foreign = app
        .create_rule(&stranger, rule_body(&id_of(&carrier), &id_of(&address)))
        .await;
    let refused = app
        .put(
            &path,
            &org.token,
            json!({"enabled": true, "shippingRuleId": id_of(&foreign)}),
        )
        .await
        .problem(400, "validation_failed");
    assert_eq!(refused["errors"][0]["field"], "shippingRuleId");

    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let rule = app
        .create_rule(&org, rule_body(&id_of(&carrier), &id_of(&address)))
        .await;
    let open = json!({"enabled": true, "shippingRuleId": id_of(&rule), "reasons": [" Too small ", "Changed my mind"]});
    let saved = app.put(&path, &org.token, open).await.expect(200);
    assert_eq!(saved["reasons"], json!(["Too small", "Changed my mind"]));
    assert_eq!(app.get(&path, &org.token).await.expect(200), saved);

    // The rule the portal books with is not deleted from under it.
    let rule_path = format!("/orgs/{}/shipping-rules/{}", org.id, id_of(&rule));
    app.delete(&rule_path, &org.token)
        .await
        .problem(409, "conflict");
    app.put(&path, &org.token, json!({"enabled": false}))
        .await
        .expect(200);
    app.delete(&rule_path, &org.token).await.expect(200);

    let reader = app.create_token(&org, "read:orgs");
    app.get(&path, &reader).await.expect(200);
    app.put(&path, &reader, json!({}))
        .await
        .problem(403, "insufficient_scope");
}
