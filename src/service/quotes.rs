//! Shipping quotes (SPEC row 10, DESIGN §11): one rate per matching (rule, condition), priced in
//! cents as Shopify's carrier-service callback expects, sorted by price.

use crate::model::quote::{QuoteIn, QuoteOut, ShippingRate};

use crate::{
    error::Result,
    model::{shipping_rule::Basket, validate::Violations},
    service::{Actor, Ctx, Input, operations as ops},
    store,
};

pub async fn quote(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<QuoteIn>,
) -> Result<QuoteOut> {
    actor.authorize(org_id, &ops::QUOTE_SHIPPING_RATES)?;
    let request = input.get()?;
    let mut errors = Violations::new();
    let country = request.destination.country.unwrap_or_default();
    if country.is_empty() {
        errors.add("destination.country", "is required");
    }
    if request.items.is_empty() {
        errors.add("items", "must contain at least 1 item");
    }
    for (i, item) in request.items.iter().enumerate() {
        if item.quantity < 1 {
            errors.add(format!("items[{i}].quantity"), "must be at least 1");
        }
        if !(item.grams.is_finite() && item.grams >= 0.0) {
            errors.add(
                format!("items[{i}].grams"),
                "must be a number of at least 0",
            );
        }
        if !(item.price.is_finite() && item.price >= 0.0) {
            errors.add(
                format!("items[{i}].price"),
                "must be a number of at least 0",
            );
        }
    }
    errors.finish()?;
    let basket = Basket {
        kg: request
            .items
            .iter()
            .map(|i| i.grams * i.quantity as f64)
            .sum::<f64>()
            / 1000.0,
        subtotal_cents: request
            .items
            .iter()
            .map(|i| i.price * i.quantity as f64)
            .sum(),
        quantity: request.items.iter().map(|i| i.quantity as f64).sum(),
    };
    let org_id = org_id.to_string();
    let rules = ctx
        .db
        .read(move |db| store::shipping_rules::all(db, &org_id))
        .await?;
    let mut rates = Vec::new();
    for view in rules {
        let (rule, carrier) = (&view.rule, &view.carrier.carrier.fields);
        let fields = &rule.fields;
        if !fields.ships_to(&country) {
            continue;
        }
        for (i, condition) in fields.conditions.iter().enumerate() {
            if condition.matches(basket) {
                rates.push((
                    condition.price_cents(),
                    ShippingRate {
                        service_name: fields.name.clone(),
                        service_code: format!("{}:{i}", rule.id),
                        total_price: condition.price_cents().to_string(),
                        currency: condition.currency.clone(),
                        shipping_rule_id: rule.id.clone(),
                        description: fields.description.clone(),
                        min_delivery_date: None,
                        max_delivery_date: None,
                        carrier_name: carrier.name.clone(),
                        carrier_slug: carrier.carrier_slug.clone(),
                        product_id: fields.product_id.clone(),
                    },
                ));
            }
        }
    }
    rates.sort_by_key(|(cents, _)| *cents);
    Ok(QuoteOut {
        rates: rates.into_iter().map(|(_, rate)| rate).collect(),
    })
}
