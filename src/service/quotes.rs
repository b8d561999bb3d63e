//! Shipping quotes (SPEC row 10, DESIGN §11): one rate per matching (rule, condition), priced in
//! cents as Shopify's carrier-service callback expects, sorted by price.

use crate::{
    error::Result,
    model::{
        rule::Basket,
        scope::{Resource, Scope},
        validate::Violations,
    },
    service::{Actor, Ctx, Input},
    store,
};

/// A basket to price.
pub struct QuoteRequest {
    pub country: Option<String>,
    pub items: Vec<QuoteItem>,
}

pub struct QuoteItem {
    pub quantity: i64,
    pub grams: f64,
    /// Unit price in cents.
    pub price: f64,
}

/// One offer (SPEC §2 ShippingRate); `total_price` in cents.
#[derive(Clone, Debug, PartialEq)]
pub struct Rate {
    pub service_name: String,
    pub service_code: String,
    pub total_price: u64,
    pub currency: String,
    pub shipping_rule_id: String,
    pub description: Option<String>,
    pub carrier_name: String,
    pub carrier_slug: String,
    pub product_id: String,
}

pub async fn quote(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<QuoteRequest>,
) -> Result<Vec<Rate>> {
    actor.authorize(org_id, Scope::read(Resource::ShippingRules))?;
    let request = input.get()?;
    let mut errors = Violations::new();
    let country = request.country.unwrap_or_default();
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
        .read(move |c| store::shipping_rules::all(c, &org_id))
        .await?;
    let mut rates = Vec::new();
    for view in rules {
        let settings = &view.rule.fields.settings;
        if !settings.ships_to(&country) {
            continue;
        }
        for (i, condition) in settings.conditions.iter().enumerate() {
            if condition.matches(basket) {
                rates.push(Rate {
                    service_name: view.rule.fields.name.clone(),
                    service_code: format!("{}:{i}", view.rule.id),
                    total_price: condition.price_cents(),
                    currency: condition.currency.clone(),
                    shipping_rule_id: view.rule.id.clone(),
                    description: settings.description.clone(),
                    carrier_name: view.carrier.fields.name.clone(),
                    carrier_slug: view.carrier.fields.carrier_slug.clone(),
                    product_id: settings.product_id.clone(),
                });
            }
        }
    }
    rates.sort_by_key(|r| r.total_price);
    Ok(rates)
}
