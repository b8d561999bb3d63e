//! Shopify's `orders/create` and `orders/updated` webhooks (DESIGN §8). A delivery is
//! authenticated by `X-Shopify-Hmac-Sha256` (base64 HMAC-SHA256 of the raw body with the
//! channel's secret, compared in constant time), idempotent per Shopify order id, and a repeated
//! `X-Shopify-Webhook-Id` is acknowledged and ignored.

use base64::{Engine, engine::general_purpose::STANDARD};
use ring::hmac;
use serde_json::Value;

use crate::{
    error::{Error, Result},
    model::{
        ids,
        order::{OrderBody, OrderLine, OrderRecord, ShippingAddress},
        status::OrderStatus,
        validate::Violations,
    },
    service::{
        Ctx,
        orders::{cancel_in, save},
    },
    store,
};

/// One webhook delivery as received.
pub struct Delivery {
    pub channel_id: String,
    pub hmac: Option<String>,
    pub webhook_id: Option<String>,
    pub topic: Option<String>,
    pub body: Vec<u8>,
}

/// What was done with a delivery.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Created(String),
    Updated(String),
    /// Seen before (same webhook id), or a topic Shipbase does not handle.
    Ignored,
}

/// Receives a delivery. There is no Actor: the channel's secret authenticates the sender.
pub async fn receive(ctx: &Ctx, delivery: Delivery) -> Result<Outcome> {
    let channel_id = delivery.channel_id.clone();
    let channel = ctx
        .db
        .read(move |db| store::order_channels::by_id_for_webhook(db, &channel_id))
        .await?
        .filter(|c| c.kind == "shopify")
        .ok_or(Error::NotFound)?;
    let secret = match &channel.webhook_secret {
        Some(sealed) => ctx.vault.open_sealed(sealed)?,
        None => String::new(),
    };
    if !signature_is_valid(&secret, &delivery.body, delivery.hmac.as_deref()) {
        return Err(Error::Unauthenticated);
    }
    if !matches!(
        delivery.topic.as_deref(),
        None | Some("orders/create" | "orders/updated" | "orders/cancelled")
    ) {
        return Ok(Outcome::Ignored);
    }
    let payload: Value = crate::service::decode_json(&delivery.body)?;
    let incoming = map_order(&payload)?;
    let (now, webhook_id) = (ctx.now(), delivery.webhook_id);
    ctx.db
        .write(move |tx| {
            if let Some(webhook_id) = &webhook_id
                && !store::order_channels::record_delivery(tx, &channel.id, webhook_id, &now)?
            {
                return Ok(Outcome::Ignored);
            }
            let existing = store::orders::by_external_id(
                tx,
                &channel.org_id,
                &channel.id,
                &incoming.external_id,
            )?;
            let outcome = match existing {
                Some(before) => {
                    let mut order = before.clone();
                    order.order_number = incoming.order_number;
                    order.body = incoming.body;
                    order.updated_at.clone_from(&now);
                    if incoming.cancelled && order.can_be_cancelled() {
                        cancel_in(tx, &mut order, &before, &now)?;
                    } else {
                        save(tx, &order, Some(&before))?;
                    }
                    Outcome::Updated(order.id)
                }
                None => {
                    let order = OrderRecord {
                        id: ids::new(ids::ORDER),
                        org_id: channel.org_id.clone(),
                        order_channel_id: channel.id.clone(),
                        order_number: incoming.order_number,
                        external_id: Some(incoming.external_id),
                        status: if incoming.cancelled {
                            OrderStatus::Cancelled
                        } else {
                            OrderStatus::Pending
                        },
                        shipping_rule_id: None,
                        body: incoming.body,
                        created_at: now.clone(),
                        updated_at: now.clone(),
                    };
                    save(tx, &order, None)?;
                    Outcome::Created(order.id)
                }
            };
            Ok(outcome)
        })
        .await
}

fn signature_is_valid(secret: &str, body: &[u8], header: Option<&str>) -> bool {
    let Some(tag) = header.and_then(|h| STANDARD.decode(h.trim()).ok()) else {
        return false;
    };
    let key = hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes());
    !secret.is_empty() && hmac::verify(&key, body, &tag).is_ok()
}

struct Incoming {
    external_id: String,
    order_number: String,
    cancelled: bool,
    body: OrderBody,
}

/// Maps Shopify's order JSON (REST Admin API shape) onto an order.
fn map_order(p: &Value) -> Result<Incoming> {
    let text = |v: &Value| match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let number = |v: &Value| match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    };
    let mut errors = Violations::new();
    let external_id = text(&p["id"]);
    if external_id.is_none() {
        errors.add("id", "the Shopify order id is required");
    }
    errors.finish()?;
    let currency = text(&p["currency"]);
    let customer = &p["customer"];
    let customer_name = [text(&customer["first_name"]), text(&customer["last_name"])]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    let lines = p["line_items"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let order_lines = lines
        .iter()
        .map(|l| {
            let quantity = number(&l["quantity"]).unwrap_or(1.0);
            let unit_price = number(&l["price"]);
            OrderLine {
                name: text(&l["name"])
                    .or_else(|| text(&l["title"]))
                    .unwrap_or_else(|| "Item".into()),
                quantity,
                sku: text(&l["sku"]),
                unit_price,
                total_price: unit_price.map(|p| p * quantity),
                currency: currency.clone(),
                weight: number(&l["grams"]).map(|g| g / 1000.0),
                weight_unit: Some("kg".into()),
                variant_id: text(&l["variant_id"]),
                product_id: text(&l["product_id"]),
                image_url: None,
                hs_code: text(&l["harmonized_system_code"]),
                country_of_origin: text(&l["country_code_of_origin"]),
                province_of_origin: text(&l["province_code_of_origin"]),
                barcode: None,
                requires_shipping: l["requires_shipping"].as_bool(),
                taxable: l["taxable"].as_bool(),
                gift_card: l["gift_card"].as_bool(),
                vendor: text(&l["vendor"]),
            }
        })
        .collect();
    let a = &p["shipping_address"];
    let shipping_address = a.is_object().then(|| ShippingAddress {
        name: text(&a["name"]).or_else(|| {
            let name = [text(&a["first_name"]), text(&a["last_name"])]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
            (!name.is_empty()).then_some(name)
        }),
        address1: text(&a["address1"]),
        city: text(&a["city"]),
        postal_code: text(&a["zip"]),
        country_code: text(&a["country_code"]),
        attention: None,
        company: text(&a["company"]),
        address2: text(&a["address2"]),
        province: text(&a["province"]),
        province_code: text(&a["province_code"]),
        country: text(&a["country"]),
        phone: text(&a["phone"]),
        email: text(&p["email"]),
    });
    let external_id = external_id.unwrap_or_default();
    Ok(Incoming {
        order_number: text(&p["name"])
            .or_else(|| text(&p["order_number"]))
            .unwrap_or_else(|| external_id.clone()),
        external_id,
        cancelled: !p["cancelled_at"].is_null(),
        body: OrderBody {
            order_lines,
            customer_name: (!customer_name.is_empty()).then_some(customer_name),
            customer_email: text(&p["email"]).or_else(|| text(&customer["email"])),
            notes: text(&p["note"]),
            currency,
            total_amount: number(&p["total_price"]),
            shipping_address,
            external_data: Some(p.clone()),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_checked_against_the_raw_body() {
        let key = hmac::Key::new(hmac::HMAC_SHA256, b"secret-secret-secret");
        let body = br#"{"id": 1}"#;
        let tag = STANDARD.encode(hmac::sign(&key, body).as_ref());
        assert!(signature_is_valid("secret-secret-secret", body, Some(&tag)));
        assert!(!signature_is_valid(
            "secret-secret-secret",
            br#"{"id": 2}"#,
            Some(&tag)
        ));
        assert!(!signature_is_valid("another-secret-here", body, Some(&tag)));
        assert!(!signature_is_valid("secret-secret-secret", body, None));
        assert!(!signature_is_valid(
            "secret-secret-secret",
            body,
            Some("not base64!")
        ));
        assert!(!signature_is_valid("", body, Some(&tag)));
    }

    #[test]
    fn a_shopify_order_maps_lines_address_customer_and_totals() {
        let payload: Value =
            serde_json::from_str(include_str!("../../../tests/fixtures/shopify_order.json"))
                .unwrap_or_else(|e| panic!("fixture: {e}"));
        let o = map_order(&payload).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(o.external_id, "450789469");
        assert_eq!(o.order_number, "#1001");
        assert!(!o.cancelled);
        assert_eq!(o.body.currency.as_deref(), Some("USD"));
        assert_eq!(o.body.total_amount, Some(598.94));
        assert_eq!(o.body.customer_name.as_deref(), Some("Bob Norman"));
        assert_eq!(
            o.body.customer_email.as_deref(),
            Some("bob.norman@mail.example.com")
        );
        let lines = &o.body.order_lines;
        assert_eq!(lines.len(), 2);
        assert_eq!(
            (
                lines[0].sku.as_deref(),
                lines[0].quantity,
                lines[0].unit_price
            ),
            (Some("IPOD2008PINK"), 1.0, Some(199.0))
        );
        assert_eq!(lines[0].weight, Some(0.2));
        let address = o.body.shipping_address.unwrap_or_default();
        assert_eq!(address.name.as_deref(), Some("Bob Norman"));
        assert_eq!(
            (
                address.postal_code.as_deref(),
                address.country_code.as_deref()
            ),
            (Some("K2P0S8"), Some("CA"))
        );
    }
}
