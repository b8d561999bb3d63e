//! Settings → Returns portal (DESIGN §20, §21): open or close the portal, the shipping rule that
//! books its returns and the reasons offered (one per line), saved through the same
//! `update_returns_portal` operation as REST.

use std::collections::BTreeMap;

use minijinja::context;
use poem::{
    Request, Response, handler,
    web::{Data, Path},
};
use serde_json::{Value, json};

use super::{form_values, is_refusal, problems_at};
use crate::{
    error::Error,
    model::returns_portal::ReturnsPortal,
    service::{Ctx, PageParams, input_value, operations as ops, returns_portal, shipping_rules},
    web::{app::Desk, page::see_other},
};

const PATH: &str = "settings/returns-portal";

#[handler]
pub async fn show(req: &Request, Data(ctx): Data<&Ctx>, Path(org): Path<String>) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    let current = match returns_portal::get(ctx, &desk.actor, &org).await {
        Ok(current) => current,
        Err(err) => return desk.refused(req, err),
    };
    page(&mut desk, req, ctx, &values_of(&current), &BTreeMap::new()).await
}

/// `POST /app/{orgId}/settings/returns-portal`: `enabled`, `shippingRuleId`, `reasons` (one per
/// line).
#[handler]
pub async fn submit(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path(org): Path<String>,
    body: Vec<u8>,
) -> Response {
    let (mut desk, fields) = match Desk::open_form(req, ctx, &org, &body).await {
        Ok(opened) => opened,
        Err(answer) => return answer,
    };
    let values = form_values(&fields);
    let reasons: Vec<String> = values
        .get("reasons")
        .map(|r| {
            r.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let portal = json!({
        "enabled": values.contains_key("enabled"),
        "shippingRuleId": values.get("shippingRuleId").filter(|v| !v.is_empty()),
        "reasons": reasons,
    });
    match returns_portal::update(ctx, &desk.actor, &org, input_value(portal)).await {
        Ok(_) => {
            desk.visit.leave_notice(req, "The returns portal is saved.");
            see_other(&desk.path(PATH))
        }
        Err(Error::Validation(problems)) => {
            let errors = problems_at(problems, |f| {
                Some(
                    if f.starts_with("reasons") {
                        "reasons"
                    } else {
                        f
                    }
                    .to_string(),
                )
            });
            page(&mut desk, req, ctx, &values, &errors).await
        }
        Err(err) if is_refusal(&err) => desk.refused(req, err),
        Err(err) => {
            let errors = BTreeMap::from([(String::new(), err.to_string())]);
            page(&mut desk, req, ctx, &values, &errors).await
        }
    }
}

fn values_of(portal: &ReturnsPortal) -> BTreeMap<String, String> {
    let mut values = BTreeMap::new();
    if portal.enabled {
        values.insert("enabled".into(), "on".into());
    }
    if let Some(rule) = &portal.shipping_rule_id {
        values.insert("shippingRuleId".into(), rule.clone());
    }
    values.insert("reasons".into(), portal.reasons.join("\n"));
    values
}

async fn page(
    desk: &mut Desk,
    req: &Request,
    ctx: &Ctx,
    values: &BTreeMap<String, String>,
    errors: &BTreeMap<String, String>,
) -> Response {
    let rules: Vec<Value> =
        match shipping_rules::list(ctx, &desk.actor, &desk.org_id, PageParams::first(100)).await {
            Ok(page) => page
                .data
                .into_iter()
                .map(|r| json!({"value": r.rule.id, "label": r.rule.fields.name}))
                .collect(),
            Err(err) => return desk.refused(req, err),
        };
    let slug = match crate::service::orgs::get(ctx, &desk.actor, &desk.org_id).await {
        Ok(org) => org.slug,
        Err(_) => String::new(),
    };
    let notice = desk.visit.take_notice(req);
    let may_change = desk.may(&ops::UPDATE_RETURNS_PORTAL);
    desk.render(
        req,
        "app/returns_portal.html",
        "settings",
        context! {
            enabled => values.contains_key("enabled"),
            rule => values.get("shippingRuleId").cloned().unwrap_or_default(),
            reasons => values.get("reasons").cloned().unwrap_or_default(),
            rules => crate::web::page::to_value(&rules),
            address => format!("{}/r/{slug}", ctx.config.base_url()),
            errors => crate::web::page::to_value(errors), general => errors.get(""),
            notice, may_change,
        },
    )
}
