//! The New shipment form's carrier prices: the organization's carriers asked what they charge
//! for the shipment as filled in (the same rates as `POST /orgs/{orgId}/rates`); choosing an
//! offer sets the form's carrier and product.

use serde_json::{Value, json};

use crate::{
    error::Error,
    service::{Ctx, input_value, shipments::rates},
    web::app::Desk,
};

/// The offers (`value` is what the product select takes: `carrierId|productId`) and, per
/// carrier that gave none, why.
pub(super) async fn ask(ctx: &Ctx, desk: &Desk, body: Value) -> Result<Value, Error> {
    let out = rates::compare(ctx, &desk.actor, &desk.org_id, input_value(body)).await?;
    let offers: Vec<Value> = out
        .data
        .iter()
        .map(|r| {
            json!({
                "value": format!("{}|{}", r.carrier_id, r.product_id),
                "carrier": r.carrier_name,
                "product": r.product_name,
                "price": format!("{} {}", r.price, r.currency),
                "delivery": r.estimated_delivery,
            })
        })
        .collect();
    let errors: Vec<Value> = out
        .errors
        .iter()
        .map(|e| json!({"carrier": e.carrier_name, "message": e.message}))
        .collect();
    Ok(json!({"offers": offers, "errors": errors}))
}
