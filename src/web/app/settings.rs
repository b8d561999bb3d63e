//! Settings (DESIGN §20): one page per resource a shop sets up, each listing what there is
//! through the resource's list operation (so a role that may not read it gets the 403 page),
//! and, for sender addresses, carriers and printers, a form adding one with the create
//! operation, problems shown next to their inputs.

use std::collections::BTreeMap;

use minijinja::context;
use poem::{
    Request, Response, handler,
    web::{Data, Path},
};
use poem_openapi::types::ToJSON;
use serde_json::{Value, json};

use super::{Desk, settings_extras::cell};
use crate::{
    error::{Error, Result},
    service::{self, Ctx, PageParams, operations as ops, operations::Operation},
    web::page::to_value,
};

/// A settings page: path, title, the operation that lists it, its columns (heading, JSON
/// pointer into an item).
struct Page {
    path: &'static str,
    title: &'static str,
    operation: &'static Operation,
    columns: &'static [(&'static str, &'static str)],
}

const PAGES: [Page; 13] = [
    Page {
        path: "sender-addresses",
        title: "Sender addresses",
        operation: &ops::LIST_SENDER_ADDRESSES,
        columns: &[
            ("Name", "/name"),
            ("Street", "/address1"),
            ("City", "/city"),
            ("Country", "/countryCode"),
        ],
    },
    Page {
        path: "carriers",
        title: "Carriers",
        operation: &ops::LIST_CARRIERS,
        columns: &[
            ("Name", "/name"),
            ("Type", "/carrierSlug"),
            ("Added", "/createdAt"),
        ],
    },
    Page {
        path: "shipping-rules",
        title: "Shipping rules",
        operation: &ops::LIST_SHIPPING_RULES,
        columns: &[
            ("Name", "/name"),
            ("Carrier", "/carrier/name"),
            ("Product", "/productId"),
            ("Priority", "/priority"),
        ],
    },
    Page {
        path: "printers",
        title: "Printers",
        operation: &ops::LIST_PRINTERS,
        columns: &[
            ("Name", "/name"),
            ("Kind", "/kind"),
            ("Address", "/address"),
            ("Takes", "/format"),
        ],
    },
    Page {
        path: "webhooks",
        title: "Webhooks",
        operation: &ops::LIST_WEBHOOKS,
        columns: &[
            ("URL", "/url"),
            ("Active", "/isActive"),
            ("Added", "/createdAt"),
        ],
    },
    Page {
        path: "order-channels",
        title: "Order channels",
        operation: &ops::LIST_ORDER_CHANNELS,
        columns: &[
            ("Name", "/name"),
            ("Type", "/type"),
            ("Shopify sends orders to", "/webhookUrl"),
            ("Added", "/createdAt"),
        ],
    },
    Page {
        path: "api-tokens",
        title: "API tokens",
        operation: &ops::LIST_API_TOKENS,
        columns: &[
            ("Name", "/name"),
            ("Scopes", "/scopes"),
            ("Last used", "/lastUsedAt"),
            ("Expires", "/expiresAt"),
        ],
    },
    Page {
        path: "members",
        title: "Members",
        operation: &ops::LIST_MEMBERS,
        columns: &[
            ("Name", "/name"),
            ("E-mail", "/email"),
            ("Role", "/role"),
            ("Brand", "/brand"),
        ],
    },
    Page {
        path: "usage",
        title: "Plan and usage",
        operation: &ops::GET_BILLING_USAGE,
        columns: &[],
    },
    Page {
        path: "audit",
        title: "Audit log",
        operation: &ops::LIST_AUDIT_LOG,
        columns: &[
            ("When", "/at"),
            ("Operation", "/operationId"),
            ("Resource", "/resourceId"),
            ("Who", "/actor/kind"),
            ("From", "/address"),
        ],
    },
    Page {
        path: "branding",
        title: "Branding",
        operation: &ops::GET_BRANDING,
        columns: &[],
    },
    Page {
        path: "notifications",
        title: "E-mails to receivers",
        operation: &ops::GET_NOTIFICATION_SETTINGS,
        columns: &[],
    },
    Page {
        path: "returns-portal",
        title: "Returns portal",
        operation: &ops::GET_RETURNS_PORTAL,
        columns: &[],
    },
];

#[handler]
pub async fn index(req: &Request, Data(ctx): Data<&Ctx>, Path(org): Path<String>) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    let pages: Vec<Value> = PAGES
        .iter()
        .map(|p| json!({"path": p.path, "title": p.title, "open": desk.may(p.operation)}))
        .collect();
    desk.render(
        req,
        "app/settings.html",
        "settings",
        context! { pages => to_value(pages) },
    )
}

/// What the page lists, as the API answers it.
async fn fetch(ctx: &Ctx, desk: &Desk, page: &str) -> Result<Value> {
    let (a, o) = (&desk.actor, desk.org_id.as_str());
    let json = |v: Option<Value>| v.unwrap_or_default();
    Ok(match page {
        "sender-addresses" => json(
            service::sender_addresses::list(ctx, a, o, PageParams::first(100))
                .await?
                .to_json(),
        ),
        "carriers" => json(
            service::carriers::list(ctx, a, o, PageParams::first(100))
                .await?
                .to_json(),
        ),
        "shipping-rules" => json(
            service::shipping_rules::list(ctx, a, o, PageParams::first(100))
                .await?
                .to_json(),
        ),
        "printers" => json(
            service::printers::list(ctx, a, o, PageParams::first(100))
                .await?
                .to_json(),
        ),
        "webhooks" => json(
            service::webhooks::list(ctx, a, o, PageParams::first(100))
                .await?
                .to_json(),
        ),
        "order-channels" => json(
            service::order_channels::list(ctx, a, o, PageParams::first(100))
                .await?
                .to_json(),
        ),
        "api-tokens" => json(
            service::api_tokens::list(ctx, a, o, PageParams::first(100))
                .await?
                .to_json(),
        ),
        "members" => json(
            service::members::list(ctx, a, o, PageParams::first(100))
                .await?
                .to_json(),
        ),
        "audit" => json(
            service::audit::list(ctx, a, o, PageParams::first(100))
                .await?
                .to_json(),
        ),
        "usage" => json(service::billing::usage(ctx, a, o).await?.to_json()),
        _ => return Err(Error::NotFound),
    })
}

#[derive(Debug, Default, serde::Deserialize)]
pub struct ShowParams {
    /// The carrier type whose settings the add form asks for.
    r#type: Option<String>,
}

#[handler]
pub async fn show(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path((org, page)): Path<(String, String)>,
    poem::web::Query(params): poem::web::Query<ShowParams>,
) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    let values: BTreeMap<String, String> = params
        .r#type
        .filter(|t| crate::carriers::find(t).is_some())
        .map(|t| BTreeMap::from([("carrierSlug".to_string(), t)]))
        .unwrap_or_default();
    settings_page(&mut desk, req, ctx, &page, &values, &BTreeMap::new()).await
}

pub(super) async fn settings_page(
    desk: &mut Desk,
    req: &Request,
    ctx: &Ctx,
    page: &str,
    values: &BTreeMap<String, String>,
    errors: &BTreeMap<String, String>,
) -> Response {
    page_with_secret(desk, req, ctx, page, values, errors, None).await
}

/// The page, with `secret` (a value shown once: a token, a signing secret) when one was made.
pub(super) async fn page_with_secret(
    desk: &mut Desk,
    req: &Request,
    ctx: &Ctx,
    page: &str,
    values: &BTreeMap<String, String>,
    errors: &BTreeMap<String, String>,
    secret: Option<(String, String)>,
) -> Response {
    let Some(spec) = PAGES.iter().find(|p| p.path == page) else {
        return desk.refused(req, Error::NotFound);
    };
    if let Some(refused) = desk.require(req, spec.operation) {
        return refused;
    }
    let data = match fetch(ctx, desk, page).await {
        Ok(data) => data,
        Err(err) => return desk.refused(req, err),
    };
    // Shipping rules open in their builder: the first cell links there.
    let opens = page == "shipping-rules";
    let rows: Vec<Value> = data["data"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|item| {
            let cells: Vec<String> = spec
                .columns
                .iter()
                .map(|(_, at)| cell(item.pointer(at)))
                .collect();
            let opens = opens.then(|| cell(item.get("id")));
            json!({"cells": cells, "opens": opens})
        })
        .collect();
    let new_rule = (opens && desk.may(&ops::CREATE_SHIPPING_RULE))
        .then(|| desk.path("settings/shipping-rules/new"));
    let headings: Vec<&str> = spec.columns.iter().map(|(h, _)| *h).collect();
    let extras = match super::settings_extras::extras(ctx, desk, page, &data).await {
        Ok(extras) => extras,
        Err(err) => return desk.refused(req, err),
    };
    let form = match super::form_inputs::form_of(page).filter(|(op, _)| desk.may(op)) {
        Some((_, inputs)) => {
            let mut fields = Vec::new();
            for (name, label, required) in inputs {
                let options = match super::form_inputs::options(ctx, desk, name).await {
                    Ok(options) => options,
                    Err(err) => return desk.refused(req, err),
                };
                fields.push(json!({"name": name, "label": label, "required": required,
                    "options": options, "value": values.get(*name), "error": errors.get(*name)}));
            }
            if page == "carriers" {
                let slug = values.get("carrierSlug").map_or("sandbox", String::as_str);
                for mut input in super::form_inputs::carrier_inputs(slug) {
                    let name = input["name"].as_str().unwrap_or_default().to_string();
                    if input["kind"] != "password" && input["kind"] != "hidden" {
                        input["value"] = json!(values.get(&name));
                    }
                    input["error"] = json!(errors.get(&name));
                    fields.push(input);
                }
            }
            Some(fields)
        }
        None => None,
    };
    let types: Vec<Value> = crate::carriers::registry()
        .iter()
        .map(|c| {
            let info = c.info();
            json!({"slug": info.slug, "name": info.name, "description": info.description})
        })
        .collect();
    let chosen = values
        .get("carrierSlug")
        .cloned()
        .unwrap_or_else(|| "sandbox".into());
    let notice = desk.visit.take_notice(req);
    if page == "printers" || page == "webhooks" {
        desk.follow_changes(ctx).await;
    }
    desk.render(
        req,
        "app/settings_page.html",
        "settings",
        context! {
            page, title => spec.title, headings, rows => to_value(rows), data => to_value(&data),
            form => to_value(form), general => errors.get(""), notice,
            types => to_value(types), chosen,
            secret => secret.map(|(what, value)| context! { what, value }),
            extras => to_value(extras), new_rule,
        },
    )
}
