//! Shipping quotes: POST /orgs/{orgId}/shipping-quote (SPEC row 10, §2 ShippingRate, DESIGN §3,
//! §11).

use serde_json::{Value, json};

use crate::{
    fixtures::{Shop, assert_invalid, id_of, rule_body, with},
    helpers::Reply,
};

fn quote_path(shop: &Shop) -> String {
    format!("/orgs/{}/shipping-quote", shop.org.id)
}

async fn quote(shop: &Shop, body: Value) -> Reply {
    shop.app
        .post(&quote_path(shop), &shop.org.token, body)
        .await
}

/// A quote body to `country` with one item per `(grams, quantity, price in cents)`.
fn basket(country: &str, items: &[(f64, i64, f64)]) -> Value {
    let items: Vec<Value> = items
        .iter()
        .enumerate()
        .map(|(i, (grams, quantity, price))| {
            json!({
                "name": format!("Item {i}"),
                "quantity": quantity,
                "grams": grams,
                "price": price,
                "sku": format!("SKU-{i}")
            })
        })
        .collect();
    json!({
        "destination": {"country": country, "postalCode": "8000", "city": "Aarhus"},
        "items": items,
        "currency": "DKK"
    })
}

/// The `totalPrice` of each rate, in the order given.
#[track_caller]
fn prices(quote: &Value) -> Vec<String> {
    quote["rates"]
        .as_array()
        .unwrap_or_else(|| panic!("no rates in {quote}"))
        .iter()
        .map(|r| {
            r["totalPrice"]
                .as_str()
                .unwrap_or("<not a string>")
                .to_string()
        })
        .collect()
}

/// Quotes `body`, asserting 200, and returns the prices of the rates.
async fn quoted_prices(shop: &Shop, body: Value) -> Vec<String> {
    prices(&quote(shop, body).await.expect(200))
}

fn flat(price: f64, currency: &str) -> Value {
    json!({"type": "flatRate", "shippingPrice": price, "currency": currency})
}

fn window(kind: &str, min: Option<f64>, max: Option<f64>, price: f64) -> Value {
    let mut condition = json!({"type": kind, "shippingPrice": price, "currency": "DKK"});
    if let Some(min) = min {
        condition["min"] = json!(min);
    }
    if let Some(max) = max {
        condition["max"] = json!(max);
    }
    condition
}

fn compare(kind: &str, operator: &str, value: f64, price: f64) -> Value {
    json!({
        "type": kind,
        "operator": operator,
        "value": value,
        "shippingPrice": price,
        "currency": "DKK"
    })
}

/// A rule of the shop named `name` shipping to `countries` with `conditions`.
async fn rule(shop: &Shop, name: &str, countries: Value, conditions: Value) -> Value {
    let body = rule_body(&id_of(&shop.carrier), &id_of(&shop.address));
    let body = with(with(body, "name", json!(name)), "conditions", conditions);
    shop.app
        .create_rule(&shop.org, with(body, "receivingCountries", countries))
        .await
}

fn strings(values: &[&str]) -> Vec<String> {
    values.iter().map(|v| v.to_string()).collect()
}

#[tokio::test]
async fn a_rule_matches_when_its_receiving_countries_are_empty_or_hold_the_destination() {
    let shop = Shop::new().await;
    let everywhere = rule(&shop, "Everywhere", json!([]), json!([flat(10.0, "DKK")])).await;
    let germany = rule(&shop, "Germany", json!(["DE"]), json!([flat(20.0, "DKK")])).await;
    let nordics = rule(
        &shop,
        "Nordics",
        json!(["DK", "SE"]),
        json!([flat(30.0, "DKK")]),
    )
    .await;
    for (country, expected) in [
        ("DK", vec![&everywhere, &nordics]),
        ("SE", vec![&everywhere, &nordics]),
        ("DE", vec![&everywhere, &germany]),
        ("NO", vec![&everywhere]),
    ] {
        let quote = quote(&shop, basket(country, &[(500.0, 1, 1000.0)]))
            .await
            .expect(200);
        let rule_ids: Vec<&Value> = quote["rates"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| &r["shippingRuleId"])
            .collect();
        let expected: Vec<&Value> = expected.iter().map(|r| &r["id"]).collect();
        assert_eq!(rule_ids, expected, "{country}: {quote}");
    }
}

#[tokio::test]
async fn weight_is_grams_times_quantity_in_kg_with_inclusive_bounds_and_an_open_max() {
    let shop = Shop::new().await;
    let conditions = json!([
        window("weight", Some(0.0), Some(5.0), 10.0),
        window("weight", Some(5.0), Some(20.0), 20.0),
        window("weight", Some(20.0), None, 30.0)
    ]);
    rule(&shop, "By weight", json!([]), conditions).await;
    for (items, expected) in [
        // 2 × 1000 g + 6 × 500 g = 5 kg: on the bound of two windows.
        (
            vec![(1000.0, 2, 100.0), (500.0, 6, 100.0)],
            vec!["1000", "2000"],
        ),
        (vec![(4999.0, 1, 100.0)], vec!["1000"]),
        (vec![(5001.0, 1, 100.0)], vec!["2000"]),
        (vec![(10_000.0, 2, 100.0)], vec!["2000", "3000"]),
        (vec![(20_001.0, 1, 100.0)], vec!["3000"]),
        (vec![(250_000.0, 4, 100.0)], vec!["3000"]),
    ] {
        let prices = quoted_prices(&shop, basket("DK", &items)).await;
        assert_eq!(prices, strings(&expected), "{items:?}");
    }
}

#[tokio::test]
async fn a_price_range_compares_the_subtotal_in_cents_inclusively() {
    let shop = Shop::new().await;
    let conditions = json!([window("priceRange", Some(10_000.0), Some(50_000.0), 15.0)]);
    rule(&shop, "Mid baskets", json!([]), conditions).await;
    for (items, matches) in [
        (vec![(100.0, 4, 2500.0)], true),
        (vec![(100.0, 3, 2000.0), (100.0, 1, 4000.0)], true),
        (vec![(100.0, 1, 9999.0)], false),
        (vec![(100.0, 2, 25_000.0)], true),
        (vec![(100.0, 1, 50_001.0)], false),
    ] {
        let expected = if matches { vec!["1500"] } else { vec![] };
        let prices = quoted_prices(&shop, basket("DK", &items)).await;
        assert_eq!(prices, strings(&expected), "{items:?}");
    }
}

/// One condition per operator against `value`, priced 1 (gt), 2 (gte), 3 (lt), 4 (lte), 5 (eq).
fn every_operator(kind: &str, value: f64) -> Value {
    json!([
        compare(kind, "gt", value, 1.0),
        compare(kind, "gte", value, 2.0),
        compare(kind, "lt", value, 3.0),
        compare(kind, "lte", value, 4.0),
        compare(kind, "eq", value, 5.0)
    ])
}

#[tokio::test]
async fn a_price_condition_compares_the_subtotal_with_each_operator() {
    let shop = Shop::new().await;
    rule(
        &shop,
        "By price",
        json!([]),
        every_operator("price", 10_000.0),
    )
    .await;
    for (items, expected) in [
        (vec![(100.0, 1, 9999.0)], vec!["300", "400"]),
        (vec![(100.0, 2, 5000.0)], vec!["200", "400", "500"]),
        (vec![(100.0, 1, 10_001.0)], vec!["100", "200"]),
    ] {
        let prices = quoted_prices(&shop, basket("DK", &items)).await;
        assert_eq!(prices, strings(&expected), "{items:?}");
    }
}

#[tokio::test]
async fn a_quantity_condition_compares_the_number_of_units_with_each_operator() {
    let shop = Shop::new().await;
    rule(
        &shop,
        "By quantity",
        json!([]),
        every_operator("quantity", 3.0),
    )
    .await;
    for (items, expected) in [
        (
            vec![(100.0, 1, 100.0), (100.0, 1, 100.0)],
            vec!["300", "400"],
        ),
        (
            vec![(100.0, 2, 100.0), (100.0, 1, 100.0)],
            vec!["200", "400", "500"],
        ),
        (vec![(100.0, 4, 100.0)], vec!["100", "200"]),
    ] {
        let prices = quoted_prices(&shop, basket("DK", &items)).await;
        assert_eq!(prices, strings(&expected), "{items:?}");
    }
}

#[tokio::test]
async fn a_flat_rate_always_matches_and_is_priced_in_cents_in_its_currency() {
    let shop = Shop::new().await;
    let conditions = json!([
        flat(49.0, "DKK"),
        flat(12.5, "EUR"),
        flat(0.0, "EUR"),
        window("weight", Some(100.0), None, 99.0)
    ]);
    rule(&shop, "Flat", json!([]), conditions).await;
    let quote = quote(&shop, basket("US", &[(0.0, 1, 0.0)]))
        .await
        .expect(200);
    let rates: Vec<(String, Value)> = quote["rates"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["totalPrice"].as_str().unwrap_or_default().to_string(),
                r["currency"].clone(),
            )
        })
        .collect();
    assert_eq!(
        rates,
        [
            ("0".to_string(), json!("EUR")),
            ("1250".to_string(), json!("EUR")),
            ("4900".to_string(), json!("DKK")),
        ],
        "{quote}"
    );
}

#[tokio::test]
async fn rates_are_sorted_by_price_across_rules() {
    let shop = Shop::new().await;
    rule(
        &shop,
        "A",
        json!([]),
        json!([flat(30.0, "DKK"), flat(5.0, "DKK")]),
    )
    .await;
    rule(&shop, "B", json!([]), json!([flat(12.0, "DKK")])).await;
    rule(&shop, "C", json!([]), json!([flat(100.0, "DKK")])).await;
    let prices = quoted_prices(&shop, basket("DK", &[(100.0, 1, 100.0)])).await;
    assert_eq!(prices, strings(&["500", "1200", "3000", "10000"]));
}

#[tokio::test]
async fn every_rate_field_is_a_string_or_null() {
    let shop = Shop::new().await;
    let body = with(
        rule_body(&id_of(&shop.carrier), &id_of(&shop.address)),
        "conditions",
        json!([flat(49.0, "DKK")]),
    );
    let created = shop
        .app
        .create_rule(
            &shop.org,
            with(body, "description", json!("Delivered in 1-2 days")),
        )
        .await;
    let quote = quote(&shop, basket("DK", &[(500.0, 2, 1000.0)]))
        .await
        .expect(200);
    let rates = quote["rates"].as_array().cloned().unwrap_or_default();
    assert_eq!(rates.len(), 1, "{quote}");
    let rate = &rates[0];
    for key in [
        "serviceName",
        "serviceCode",
        "totalPrice",
        "currency",
        "shippingRuleId",
        "description",
        "minDeliveryDate",
        "maxDeliveryDate",
        "carrierName",
        "carrierSlug",
        "productId",
    ] {
        let value = rate
            .get(key)
            .unwrap_or_else(|| panic!("{key} missing from {rate}"));
        assert!(value.is_string() || value.is_null(), "{key}: {value}");
    }
    let total = rate["totalPrice"].as_str().unwrap_or_default();
    assert!(
        !total.is_empty() && total.bytes().all(|b| b.is_ascii_digit()),
        "{total}"
    );
    assert_eq!(rate["totalPrice"], "4900");
    assert_eq!(rate["currency"], "DKK");
    assert_eq!(rate["shippingRuleId"], created["id"]);
    assert_eq!(rate["carrierName"], shop.carrier["name"]);
    assert_eq!(rate["carrierSlug"], "sandbox");
    assert_eq!(rate["productId"], "standard");
    assert!(
        !rate["serviceName"].as_str().unwrap_or_default().is_empty(),
        "{rate}"
    );
    assert!(
        !rate["serviceCode"].as_str().unwrap_or_default().is_empty(),
        "{rate}"
    );
}

#[tokio::test]
async fn a_quote_without_a_destination_country_is_400() {
    let shop = Shop::new().await;
    rule(&shop, "Flat", json!([]), json!([flat(10.0, "DKK")])).await;
    let items = json!([{"name": "Mug", "quantity": 1, "grams": 300, "price": 5000}]);
    for destination in [json!({"city": "Aarhus"}), json!({"country": ""})] {
        let body = json!({"destination": destination, "items": items});
        assert_invalid(quote(&shop, body).await, "destination.country");
    }
    assert_invalid(quote(&shop, json!({"items": items})).await, "destination");
}

#[tokio::test]
async fn a_quote_with_empty_or_missing_items_is_400() {
    let shop = Shop::new().await;
    rule(&shop, "Flat", json!([]), json!([flat(10.0, "DKK")])).await;
    let destination = json!({"country": "DK"});
    for body in [
        json!({"destination": destination, "items": []}),
        json!({"destination": destination}),
    ] {
        assert_invalid(quote(&shop, body).await, "items");
    }
}

#[tokio::test]
async fn a_quote_without_rules_has_no_rates() {
    let shop = Shop::new().await;
    let quote = quote(&shop, basket("DK", &[(500.0, 1, 1000.0)]))
        .await
        .expect(200);
    assert_eq!(quote, json!({"rates": []}));
}

#[tokio::test]
async fn quoting_needs_read_shipping_rules_and_read_shipments_is_not_enough() {
    let shop = Shop::new().await;
    rule(&shop, "Flat", json!([]), json!([flat(10.0, "DKK")])).await;
    let body = basket("DK", &[(500.0, 1, 1000.0)]);
    let rules_reader = shop.app.create_token(&shop.org, "read:shipping_rules");
    let allowed = shop
        .app
        .post(&quote_path(&shop), &rules_reader, body.clone())
        .await
        .expect(200);
    assert_eq!(prices(&allowed), ["1000"]);
    let shipments_reader = shop.app.create_token(&shop.org, "read:shipments");
    shop.app
        .post(&quote_path(&shop), &shipments_reader, body)
        .await
        .problem(403, "insufficient_scope");
}
