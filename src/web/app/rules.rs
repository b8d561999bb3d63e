//! Settings → Shipping rules → a rule (DESIGN §20): the builder, for a new rule and for
//! changing or deleting one. It offers every condition type of DESIGN §11 (weight, subtotal
//! range, subtotal or quantity compared with a value, flat rate) in as many rows as the rule
//! needs, the carrier's products and services, printers and the return rule; saving posts the
//! same body as REST, so the checks are the operation's own, each shown at its input.

use std::collections::BTreeMap;

use minijinja::context;
use poem::{
    Request, Response, handler,
    web::{Data, Path},
};
use poem_openapi::types::ToJSON;
use serde_json::{Value, json};

use super::{
    Desk, is_refusal, problems_at,
    rule_form::{CONDITION_INPUTS, RuleForm, SWITCHES, input_of},
};
use crate::{
    error::{Error, Result},
    model::{
        shipping_rule::{CONDITION_TYPES, OPERATORS, ShippingRuleIn},
        validate::Violations,
    },
    service::{Ctx, PageParams, input_value, operations as ops, printers, shipping_rules},
    web::page::{field, see_other, to_value},
};

const RULES: &str = "settings/shipping-rules";

/// How each condition type reads on the form.
const TYPE_NAMES: [(&str, &str); 5] = [
    ("weight", "Weight between (kg)"),
    ("priceRange", "Subtotal between"),
    ("price", "Subtotal compared with a value"),
    ("quantity", "Number of items compared with a value"),
    ("flatRate", "Always (flat rate)"),
];

const OPERATOR_NAMES: [(&str, &str); 5] = [
    ("gt", "more than"),
    ("gte", "at least"),
    ("lt", "less than"),
    ("lte", "at most"),
    ("eq", "exactly"),
];

#[handler]
pub async fn show_new(req: &Request, Data(ctx): Data<&Ctx>, Path(org): Path<String>) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    if let Some(refused) = desk.require(req, &ops::CREATE_SHIPPING_RULE) {
        return refused;
    }
    let form = RuleForm {
        conditions: 1,
        parameters: 1,
        ..RuleForm::default()
    };
    builder(&mut desk, req, ctx, &form, &BTreeMap::new(), None).await
}

#[handler]
pub async fn show(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path((org, id)): Path<(String, String)>,
) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    let rule = match shipping_rules::get(ctx, &desk.actor, &org, &id).await {
        Ok(rule) => rule.to_json().unwrap_or_default(),
        Err(err) => return desk.refused(req, err),
    };
    let mut form = RuleForm::of_rule(&rule);
    form.conditions += 1;
    form.parameters += 1;
    builder(&mut desk, req, ctx, &form, &BTreeMap::new(), Some(&id)).await
}

#[handler]
pub async fn submit_new(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path(org): Path<String>,
    body: Vec<u8>,
) -> Response {
    submitted(req, ctx, &org, None, &body).await
}

#[handler]
pub async fn submit(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path((org, id)): Path<(String, String)>,
    body: Vec<u8>,
) -> Response {
    submitted(req, ctx, &org, Some(&id), &body).await
}

/// A posted builder: `action` is `save` (create or replace), `delete`, or `more_conditions` /
/// `more_parameters` (the same form with another blank row, nothing saved).
async fn submitted(req: &Request, ctx: &Ctx, org: &str, id: Option<&str>, body: &[u8]) -> Response {
    let (mut desk, fields) = match Desk::open_form(req, ctx, org, body).await {
        Ok(opened) => opened,
        Err(answer) => return answer,
    };
    let mut form = RuleForm::posted(&fields);
    match field(&fields, "action").unwrap_or("save") {
        "more_conditions" => {
            form.conditions += 1;
            return builder(&mut desk, req, ctx, &form, &BTreeMap::new(), id).await;
        }
        "more_parameters" => {
            form.parameters += 1;
            return builder(&mut desk, req, ctx, &form, &BTreeMap::new(), id).await;
        }
        "delete" => {
            let Some(id) = id else {
                return desk.refused(req, Error::NotFound);
            };
            return match shipping_rules::delete(ctx, &desk.actor, org, id).await {
                Ok(()) => {
                    desk.visit
                        .leave_notice(req, "The shipping rule is deleted.");
                    see_other(&desk.path(RULES))
                }
                Err(err) if is_refusal(&err) => desk.refused(req, err),
                Err(err) => {
                    let errors = BTreeMap::from([(String::new(), err.to_string())]);
                    builder(&mut desk, req, ctx, &form, &errors, Some(id)).await
                }
            };
        }
        _ => {}
    }
    let made = form.body();
    let at_input = |f: &str| input_of(f, &made.condition_rows, &made.parameter_rows);
    if !made.unreadable.is_empty() {
        // Not saved: the other problems are found by the rule's own checks, and shown with them.
        let mut errors = match input_value::<ShippingRuleIn>(made.body.clone()).get() {
            Ok(fields) => {
                let mut problems = Violations::new();
                fields.validate(&mut problems);
                match problems.finish() {
                    Err(Error::Validation(problems)) => problems_at(problems, at_input),
                    _ => BTreeMap::new(),
                }
            }
            Err(Error::Validation(problems)) => problems_at(problems, at_input),
            Err(_) => BTreeMap::new(),
        };
        errors.extend(made.unreadable.clone());
        return builder(&mut desk, req, ctx, &form, &errors, id).await;
    }
    let input = input_value(made.body.clone());
    let saved = match id {
        Some(id) => shipping_rules::update(ctx, &desk.actor, org, id, input).await,
        None => shipping_rules::create(ctx, &desk.actor, org, input).await,
    };
    match saved {
        Ok(rule) => {
            let said = if id.is_some() { "saved" } else { "added" };
            desk.visit.leave_notice(
                req,
                &format!("The shipping rule {} is {said}.", rule.rule.fields.name),
            );
            see_other(&desk.path(RULES))
        }
        Err(Error::Validation(problems)) => {
            let errors = problems_at(problems, at_input);
            builder(&mut desk, req, ctx, &form, &errors, id).await
        }
        Err(err) if is_refusal(&err) => desk.refused(req, err),
        Err(err) => {
            let errors = BTreeMap::from([(String::new(), err.to_string())]);
            builder(&mut desk, req, ctx, &form, &errors, id).await
        }
    }
}

/// What the builder offers: the organization's carriers with their products and services,
/// sender addresses, printers and the other rules.
async fn choices(ctx: &Ctx, desk: &Desk, id: Option<&str>) -> Result<Value> {
    let (a, o, first) = (&desk.actor, desk.org_id.as_str(), PageParams::first(100));
    // The carriers' products and the sender addresses, as New shipment offers them.
    let shared = super::orders::choices(ctx, desk).await?;
    let services = super::form_inputs::service_groups(&shared["carriers"]);
    let addresses: Vec<Value> = shared["senderAddresses"]["data"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            json!({"value": s["id"], "label": format!("{}, {}",
            s["name"].as_str().unwrap_or_default(), s["city"].as_str().unwrap_or_default())})
        })
        .collect();
    // A member may build rules' shipments but not see printers: the choice is then left out.
    let printers: Vec<Value> = if desk.may(&ops::LIST_PRINTERS) {
        printers::list(ctx, a, o, first.clone())
            .await?
            .data
            .into_iter()
            .map(|p| {
                json!({"value": p.id, "label": format!("{} ({})", p.fields.name, p.fields.format)})
            })
            .collect()
    } else {
        Vec::new()
    };
    let rules: Vec<Value> = shipping_rules::list(ctx, a, o, first)
        .await?
        .data
        .into_iter()
        .filter(|r| Some(r.rule.id.as_str()) != id)
        .map(|r| json!({"value": r.rule.id, "label": r.rule.fields.name}))
        .collect();
    Ok(
        json!({"products": shared["products"], "services": services, "addresses": addresses,
              "printers": printers, "rules": rules}),
    )
}

/// The builder page for `form`, with `errors` at their inputs; `id` is the rule being changed.
async fn builder(
    desk: &mut Desk,
    req: &Request,
    ctx: &Ctx,
    form: &RuleForm,
    errors: &BTreeMap<String, String>,
    id: Option<&str>,
) -> Response {
    let choices = match choices(ctx, desk, id).await {
        Ok(choices) => choices,
        Err(err) => return desk.refused(req, err),
    };
    let switches: Vec<Value> = SWITCHES
        .iter()
        .map(|(name, label)| json!({"name": name, "label": label}))
        .collect();
    let named = |pairs: &[(&str, &str)]| -> Vec<Value> {
        pairs
            .iter()
            .map(|(v, l)| json!({"value": v, "label": l}))
            .collect()
    };
    debug_assert_eq!(TYPE_NAMES.len(), CONDITION_TYPES.len());
    debug_assert_eq!(OPERATOR_NAMES.len(), OPERATORS.len());
    let may_save = desk.may(if id.is_some() {
        &ops::UPDATE_SHIPPING_RULE
    } else {
        &ops::CREATE_SHIPPING_RULE
    });
    let may_delete = id.is_some() && desk.may(&ops::DELETE_SHIPPING_RULE);
    desk.render(
        req,
        "app/rule.html",
        "settings",
        context! {
            id, values => to_value(&form.values), errors => to_value(errors),
            general => errors.get(""), services_on => to_value(&form.services),
            conditions => (0..form.conditions).collect::<Vec<_>>(),
            parameters => (0..form.parameters).collect::<Vec<_>>(),
            condition_inputs => CONDITION_INPUTS.to_vec(),
            types => to_value(named(&TYPE_NAMES)), operators => to_value(named(&OPERATOR_NAMES)),
            switches => to_value(switches), choices => to_value(choices), may_save, may_delete,
        },
    )
}
