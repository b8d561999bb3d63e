//! What each Settings add form asks (DESIGN §20): its create operation, its inputs, and the
//! choices of the inputs that have them.

use super::Desk;
use crate::{
    error::Result,
    service::{self, Ctx, PageParams, operations as ops, operations::Operation},
};

/// The choices of an input that has them: `[value, label]` pairs; None for free text.
pub(super) async fn options(
    ctx: &Ctx,
    desk: &Desk,
    name: &str,
) -> Result<Option<Vec<(String, String)>>> {
    let fixed = |pairs: &[(&str, &str)]| {
        Some(
            pairs
                .iter()
                .map(|(v, l)| (v.to_string(), l.to_string()))
                .collect(),
        )
    };
    Ok(match name {
        "senderAddressId" => {
            let page = service::sender_addresses::list(
                ctx,
                &desk.actor,
                &desk.org_id,
                PageParams::first(100),
            )
            .await?;
            Some(
                page.data
                    .into_iter()
                    .map(|a| {
                        (
                            a.id.clone(),
                            format!("{}, {}", a.fields.name, a.fields.city),
                        )
                    })
                    .collect(),
            )
        }
        "carrierSlug" => Some(
            crate::carriers::registry()
                .iter()
                .map(|c| {
                    let info = c.info();
                    (
                        info.slug.to_string(),
                        format!("{} ({})", info.name, info.description),
                    )
                })
                .collect(),
        ),
        "kind" => fixed(&[
            ("raw", "Raw TCP (port 9100)"),
            ("ipp", "IPP (ipp://, ipps://)"),
        ]),
        "format" => fixed(&[("pdf", "PDF"), ("zpl", "ZPL (thermal label printers)")]),
        // Only an owner makes owners (§19).
        "role" if desk.membership.role == "owner" => {
            fixed(&[("member", "Member"), ("admin", "Admin"), ("owner", "Owner")])
        }
        "role" => fixed(&[("member", "Member"), ("admin", "Admin")]),
        "type" => fixed(&[
            ("manual", "Manual (orders made in Shipbase or over the API)"),
            ("shopify", "Shopify"),
        ]),
        _ => None,
    })
}

/// A form's inputs: name, label, required.
pub(super) type Inputs = &'static [(&'static str, &'static str, bool)];

/// The add form of a page: its create operation and inputs.
pub(super) fn form_of(page: &str) -> Option<(&'static Operation, Inputs)> {
    match page {
        "sender-addresses" => Some((
            &ops::CREATE_SENDER_ADDRESS,
            &[
                ("name", "Name", true),
                ("attContact", "Contact person", true),
                ("address1", "Street and number", true),
                ("zipcode", "Postal code", true),
                ("city", "City", true),
                ("state", "State or region", true),
                ("countryCode", "Country (2 letters)", true),
                ("phone", "Phone", true),
                ("email", "E-mail", true),
            ],
        )),
        "carriers" => Some((
            &ops::CREATE_CARRIER,
            &[
                ("name", "Name", true),
                ("senderAddressId", "Ships from", true),
            ],
        )),
        "printers" => Some((
            &ops::CREATE_PRINTER,
            &[
                ("name", "Name", true),
                ("kind", "Kind", true),
                ("address", "Address (host:port, or an ipp:// URI)", true),
                ("format", "Takes", true),
            ],
        )),
        "api-tokens" => Some((
            &ops::CREATE_API_TOKEN,
            &[
                ("name", "Name", true),
                (
                    "scopes",
                    "Scopes (space-separated, e.g. read:all write:shipments)",
                    true,
                ),
            ],
        )),
        "members" => Some((
            &ops::ADD_MEMBER,
            &[
                ("email", "E-mail", true),
                ("name", "Name", true),
                ("role", "Role", true),
            ],
        )),
        "webhooks" => Some((
            &ops::CREATE_WEBHOOK,
            &[
                ("name", "Name", true),
                ("url", "URL (https://…)", true),
                (
                    "events",
                    "Events (space-separated, e.g. shipment.created shipment.updated)",
                    true,
                ),
            ],
        )),
        "order-channels" => Some((
            &ops::CREATE_ORDER_CHANNEL,
            &[
                ("name", "Name", true),
                ("type", "Type", true),
                (
                    "shopDomain",
                    "Shopify domain (for Shopify: your-shop.myshopify.com)",
                    false,
                ),
            ],
        )),
        _ => None,
    }
}

/// The inputs a carrier type's configuration asks for (`available-carriers`): `config.<key>`,
/// a password input for a secret (never filled in again), a choice for a select; and the type
/// itself, carried along hidden.
pub(super) fn carrier_inputs(slug: &str) -> Vec<serde_json::Value> {
    let Some(adapter) = crate::carriers::find(slug) else {
        return Vec::new();
    };
    let mut inputs = vec![serde_json::json!({
        "name": "carrierSlug", "kind": "hidden", "value": slug, "label": "", "required": true,
    })];
    for f in adapter.info().fields {
        let options: Option<Vec<(String, String)>> = (f.kind == "select").then(|| {
            f.options
                .iter()
                .map(|o| (o.value.to_string(), o.name.to_string()))
                .collect()
        });
        inputs.push(serde_json::json!({
            "name": format!("config.{}", f.key),
            "label": if f.description.is_empty() { f.name.to_string() } else { format!("{} ({})", f.name, f.description) },
            "required": f.required,
            "kind": if f.kind == "password" { "password" } else { "text" },
            "options": options,
        }));
    }
    inputs
}

/// The services of the carrier types of `carriers` (a carrier list as the API answers it; each
/// type once, in order), a group per type: `{carrier, offers: [{id, name}]}`.
pub(super) fn service_groups(carriers: &serde_json::Value) -> Vec<serde_json::Value> {
    let mut seen = std::collections::BTreeSet::new();
    let mut groups = Vec::new();
    let slugs = carriers["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["carrierSlug"].as_str());
    for slug in slugs {
        let Some(adapter) = crate::carriers::find(slug) else {
            continue;
        };
        let info = adapter.info();
        if seen.insert(slug.to_string()) && !info.services.is_empty() {
            let offers: Vec<serde_json::Value> = info
                .services
                .iter()
                .map(|s| serde_json::json!({"id": s.id, "name": s.name}))
                .collect();
            groups.push(serde_json::json!({"carrier": info.name, "offers": offers}));
        }
    }
    groups
}
