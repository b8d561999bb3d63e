//! The shipping rule builder (DESIGN §20 Settings, §11 conditions): every condition type in as
//! many rows as a rule needs, money in major units on the form and in cents in the API, problems
//! at the row they came from, edit and delete, and a member who may read rules but not change them.

use serde_json::json;

use crate::{
    fixtures::{Shop, id_of, rule_body},
    workbench::{
        app_path, assert_html_page, assert_no_error_at, assert_refused_for, csrf, error_at, owner,
        person, product, total,
    },
};

fn fields<'a>(pairs: &'a [(&'a str, String)]) -> Vec<(&'a str, &'a str)> {
    pairs.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// A builder form for a rule of `shop` with a weight, a subtotal range and a quantity condition
/// (the first row left blank, as a user leaves one).
fn rule_fields(shop: &Shop, token: &str) -> Vec<(&'static str, String)> {
    vec![
        ("csrf_token", token.to_string()),
        ("name", "Home delivery".into()),
        ("product", product(shop)),
        ("senderAddressId", id_of(&shop.address)),
        ("receivingCountries", "dk se".into()),
        ("autoCreateReturnShipment", "".into()),
        ("generatePackingList", "on".into()),
        ("conditions[0].type", "".into()),
        ("conditions[1].type", "weight".into()),
        ("conditions[1].min", "0".into()),
        ("conditions[1].max", "2,5".into()),
        ("conditions[1].shippingPrice", "39".into()),
        ("conditions[1].currency", "dkk".into()),
        ("conditions[2].type", "priceRange".into()),
        ("conditions[2].min", "500".into()),
        ("conditions[2].shippingPrice", "0".into()),
        ("conditions[2].currency", "DKK".into()),
        ("conditions[3].type", "quantity".into()),
        ("conditions[3].operator", "gte".into()),
        ("conditions[3].value", "10".into()),
        ("conditions[3].shippingPrice", "19.5".into()),
        ("conditions[3].currency", "DKK".into()),
        ("additionalParameters[0].name", "pickupPoint".into()),
        ("additionalParameters[0].val", "nearest".into()),
        ("action", "save".into()),
    ]
}

#[tokio::test]
async fn the_builder_makes_a_rule_with_every_kind_of_condition_in_the_apis_units() {
    let shop = Shop::new().await;
    let mut browser = owner(&shop).await;
    let path = app_path(&shop.org, "settings/shipping-rules/new");
    let form = browser.get(&path).await;
    assert_html_page(&form, "the rule builder");
    assert_eq!(
        form.options("conditions[0].type"),
        ["", "weight", "priceRange", "price", "quantity", "flatRate"]
    );
    assert_eq!(
        form.options("conditions[0].operator"),
        ["", "gt", "gte", "lt", "lte", "eq"]
    );
    assert!(form.options("product").contains(&product(&shop)));

    // "Add another condition" shows one more row and saves nothing.
    let mut more = rule_fields(&shop, &csrf(&form));
    more.retain(|(k, _)| *k != "action");
    more.push(("action", "more_conditions".into()));
    let page = browser.post(&path, &fields(&more)).await;
    assert_html_page(&page, "another condition");
    assert_eq!(page.options("conditions[4].type").len(), 6);
    assert_eq!(page.hidden("name").as_deref(), Some("Home delivery"));
    assert_eq!(total(&shop, "shipping-rules").await, 0);

    let page = browser
        .post(&path, &fields(&rule_fields(&shop, &csrf(&form))))
        .await;
    assert_eq!(page.status, 303, "{}", page.text());
    assert_eq!(
        page.location(),
        app_path(&shop.org, "settings/shipping-rules")
    );
    let list = shop
        .app
        .get(
            &format!("/orgs/{}/shipping-rules", shop.org.id),
            &shop.org.token,
        )
        .await
        .expect(200);
    let rule = &list["data"][0];
    assert_eq!(rule["name"], "Home delivery");
    assert_eq!(rule["productId"], "standard");
    assert_eq!(rule["receivingCountries"], json!(["DK", "SE"]));
    assert_eq!(rule["generatePackingList"], json!(true));
    assert_eq!(rule["autoCreateReturnShipment"], json!(false));
    assert_eq!(
        rule["conditions"],
        json!([
            {"type": "weight", "min": 0.0, "max": 2.5, "operator": null, "value": null,
             "shippingPrice": 39.0, "currency": "DKK"},
            {"type": "priceRange", "min": 50000.0, "max": null, "operator": null, "value": null,
             "shippingPrice": 0.0, "currency": "DKK"},
            {"type": "quantity", "min": null, "max": null, "operator": "gte", "value": 10.0,
             "shippingPrice": 19.5, "currency": "DKK"},
        ])
    );
    assert_eq!(
        rule["additionalParameters"],
        json!([{"name": "pickupPoint", "val": "nearest"}])
    );

    // The list links the rule to its builder, which shows it in the form's units.
    let list_page = browser
        .get(&app_path(&shop.org, "settings/shipping-rules"))
        .await;
    let rule_path = app_path(
        &shop.org,
        &format!("settings/shipping-rules/{}", id_of(rule)),
    );
    assert!(
        list_page.html.contains(&format!("href=\"{rule_path}\"")),
        "{}",
        list_page.html
    );
    let edit = browser.get(&rule_path).await;
    assert_html_page(&edit, "a rule's builder");
    assert_eq!(edit.hidden("conditions[1].min").as_deref(), Some("500"));
    assert_eq!(edit.hidden("conditions[2].value").as_deref(), Some("10"));
    assert_eq!(
        edit.hidden("conditions[0].max").as_deref(),
        Some("2.5"),
        "{}",
        edit.html
    );
}

#[tokio::test]
async fn a_rules_problems_are_shown_at_the_row_they_came_from_and_nothing_is_saved() {
    let shop = Shop::new().await;
    let mut browser = owner(&shop).await;
    let path = app_path(&shop.org, "settings/shipping-rules/new");
    let form = browser.get(&path).await;
    let mut bad = rule_fields(&shop, &csrf(&form));
    for (k, v) in bad.iter_mut() {
        match *k {
            "name" => *v = String::new(),
            "conditions[1].currency" => *v = "kroner".into(),
            "conditions[3].operator" => *v = String::new(),
            "conditions[2].min" => *v = "lots".into(),
            _ => {}
        }
    }
    let page = browser.post(&path, &fields(&bad)).await;
    assert_eq!(page.status, 200, "{}", page.text());
    assert!(!error_at(&page, "name").is_empty());
    assert!(error_at(&page, "conditions[1].currency").contains("ISO 4217"));
    assert!(error_at(&page, "conditions[3].operator").contains("required"));
    assert!(!error_at(&page, "conditions[2].min").is_empty());
    assert_no_error_at(&page, "conditions[1].max");
    assert_no_error_at(&page, "conditions[0].type");
    assert_eq!(page.hidden("conditions[2].min").as_deref(), Some("lots"));
    assert_eq!(total(&shop, "shipping-rules").await, 0);

    // Without its csrf_token nothing is saved.
    let mut forged = rule_fields(&shop, "");
    forged.retain(|(k, _)| *k != "csrf_token");
    let page = browser.post(&path, &fields(&forged)).await;
    assert_eq!(page.status, 403, "{}", page.text());
    assert_eq!(total(&shop, "shipping-rules").await, 0);
}

#[tokio::test]
async fn a_rule_is_changed_and_deleted_in_its_builder() {
    let shop = Shop::new().await;
    let rule = shop
        .app
        .create_rule(
            &shop.org,
            rule_body(&id_of(&shop.carrier), &id_of(&shop.address)),
        )
        .await;
    let mut browser = owner(&shop).await;
    let path = app_path(
        &shop.org,
        &format!("settings/shipping-rules/{}", id_of(&rule)),
    );
    let form = browser.get(&path).await;
    assert_html_page(&form, "the builder of a stored rule");
    assert_eq!(form.hidden("name").as_deref(), Some("Standard DK"));
    let mut changed = rule_fields(&shop, &csrf(&form));
    for (k, v) in changed.iter_mut() {
        if *k == "name" {
            *v = "Standard DK, renamed".into();
        }
    }
    let page = browser.post(&path, &fields(&changed)).await;
    assert_eq!(page.status, 303, "{}", page.text());
    let stored = shop
        .app
        .get(
            &format!("/orgs/{}/shipping-rules/{}", shop.org.id, id_of(&rule)),
            &shop.org.token,
        )
        .await
        .expect(200);
    assert_eq!(stored["name"], "Standard DK, renamed");
    assert_eq!(stored["conditions"].as_array().map(Vec::len), Some(3));

    let page = browser
        .post(&path, &[("csrf_token", &csrf(&form)), ("action", "delete")])
        .await;
    assert_eq!(page.status, 303, "{}", page.text());
    assert_eq!(total(&shop, "shipping-rules").await, 0);
    assert_eq!(browser.get(&path).await.status, 404);
}

#[tokio::test]
async fn a_member_reads_rules_in_the_builder_but_may_not_change_them() {
    let shop = Shop::new().await;
    let rule = shop
        .app
        .create_rule(
            &shop.org,
            rule_body(&id_of(&shop.carrier), &id_of(&shop.address)),
        )
        .await;
    let mut member = person(&shop, "member").await;
    let new = app_path(&shop.org, "settings/shipping-rules/new");
    assert_refused_for(&member.get(&new).await, "admin", "a member's new rule");
    let path = app_path(
        &shop.org,
        &format!("settings/shipping-rules/{}", id_of(&rule)),
    );
    let page = member.get(&path).await;
    assert_html_page(&page, "a member reading a rule");
    assert!(!page.html.contains("value=\"save\""), "{}", page.html);
    assert!(!page.html.contains("value=\"delete\""), "{}", page.html);
    let list = member
        .get(&app_path(&shop.org, "settings/shipping-rules"))
        .await;
    assert!(!list.html.contains("New shipping rule"));

    let token = csrf(&page);
    let refused = member
        .post(&path, &[("csrf_token", &token), ("action", "delete")])
        .await;
    assert_refused_for(&refused, "admin", "a member deleting a rule");
    let refused = member
        .post(&path, &fields(&rule_fields(&shop, &token)))
        .await;
    assert_refused_for(&refused, "admin", "a member saving a rule");
    assert_eq!(total(&shop, "shipping-rules").await, 1);
}
