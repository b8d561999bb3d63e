//! New shipment (DESIGN §20): sender address, receiver, parcels with the goods in them, carrier
//! with product and services from the organization's carriers, and the rates the shipping rules
//! quote for it (choosing one applies its rule); posted as the same body REST takes, so its
//! checks are the operation's own, each problem shown next to its input.

use std::collections::{BTreeMap, BTreeSet};

use minijinja::context;
use poem::{
    Request, Response, handler,
    web::{Data, Path},
};
use serde_json::{Value, json};

use super::{
    Desk, form_values, is_refusal,
    orders::choices,
    problems_at,
    shipment_parts::{LINE_INPUTS, Packed, packed, rows},
};
use crate::{
    error::Error,
    model::shipment::ApplyRuleIn,
    service::{Ctx, Input, input_value, operations as ops, quotes, shipments},
    web::page::{field, see_other, to_value},
};

/// What only the New shipment form has: its parcel and line rows, the services ticked and the
/// rates quoted.
#[derive(Default)]
pub(super) struct NewParts {
    pub parcels: usize,
    pub lines: usize,
    pub services: BTreeSet<String>,
    pub rates: Option<Vec<Value>>,
    /// The carriers' offers and refusals, once asked.
    pub carrier_rates: Option<Value>,
}

impl NewParts {
    /// The rows and services a posted form has.
    fn posted(fields: &[(String, String)], values: &BTreeMap<String, String>) -> NewParts {
        let (parcels, lines) = rows(values);
        NewParts {
            parcels: parcels.max(1),
            lines: lines.max(1),
            services: fields
                .iter()
                .filter(|(k, _)| k == "services")
                .map(|(_, v)| v.clone())
                .collect(),
            rates: None,
            carrier_rates: None,
        }
    }
}

/// The receiver's inputs: form name, label, JSON key, required, autocomplete.
pub(super) const RECEIVER: [(&str, &str, &str, bool, &str); 8] = [
    ("receiver.name", "Name", "name", true, "name"),
    (
        "receiver.address1",
        "Street and number",
        "address1",
        true,
        "address-line1",
    ),
    (
        "receiver.address2",
        "Address line 2",
        "address2",
        false,
        "address-line2",
    ),
    (
        "receiver.postalCode",
        "Postal code",
        "postalCode",
        true,
        "postal-code",
    ),
    ("receiver.city", "City", "city", true, "address-level2"),
    (
        "receiver.countryCode",
        "Country (2 letters)",
        "countryCode",
        true,
        "country",
    ),
    ("receiver.email", "E-mail", "email", false, "email"),
    ("receiver.phone", "Phone", "phone", false, "tel"),
];

#[handler]
pub async fn show(req: &Request, Data(ctx): Data<&Ctx>, Path(org): Path<String>) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    if let Some(refused) = desk.require(req, &ops::CREATE_SHIPMENT) {
        return refused;
    }
    let parts = NewParts {
        parcels: 1,
        lines: 1,
        ..NewParts::default()
    };
    form(
        &mut desk,
        req,
        ctx,
        &BTreeMap::new(),
        &BTreeMap::new(),
        None,
        &parts,
    )
    .await
}

/// The shipment form: new (with `parts`), or editing the shipment `editing` (its id).
pub(super) async fn form(
    desk: &mut Desk,
    req: &Request,
    ctx: &Ctx,
    values: &BTreeMap<String, String>,
    errors: &BTreeMap<String, String>,
    editing: Option<&str>,
    parts: &NewParts,
) -> Response {
    let choices = match choices(ctx, desk).await {
        Ok(choices) => choices,
        Err(err) => return desk.refused(req, err),
    };
    let receiver: Vec<Value> = RECEIVER
        .iter()
        .map(|(name, label, _, required, autocomplete)| {
            json!({"name": name, "label": label, "required": required,
                   "autocomplete": autocomplete, "value": values.get(*name),
                   "error": errors.get(*name)})
        })
        .collect();
    let products = choices["products"].clone();
    let general = errors.get("").cloned();
    let services = super::form_inputs::service_groups(&choices["carriers"]);
    let lines: Vec<Value> = LINE_INPUTS
        .iter()
        .map(|(name, label)| json!({"name": name, "label": label}))
        .collect();
    desk.render(
        req,
        "app/shipment_new.html",
        "new",
        context! {
            receiver => to_value(receiver), products => to_value(products),
            addresses => to_value(&choices["senderAddresses"]["data"]),
            values => to_value(values), errors => to_value(errors), general, editing,
            parcel_rows => (0..parts.parcels).collect::<Vec<_>>(),
            line_rows => (0..parts.lines).collect::<Vec<_>>(),
            line_inputs => to_value(lines), services => to_value(services),
            services_on => to_value(&parts.services), rates => to_value(&parts.rates),
            may_quote => desk.may(&ops::QUOTE_SHIPPING_RATES),
            carrier_rates => to_value(&parts.carrier_rates),
            may_rate => desk.may(&ops::COMPARE_CARRIER_RATES),
        },
    )
}

/// The new shipment's body with its parcels and services, and where its parcels came from.
fn new_body(values: &BTreeMap<String, String>, parts: &NewParts) -> (Value, Packed) {
    let mut body = body_of(values);
    let packed = packed(values);
    body["parcels"] = json!(packed.parcels);
    body["carrierSettings"]["services"] = json!(parts.services);
    (body, packed)
}

/// The rates the rules give for the form's receiver country and goods, each with its rule.
async fn rates(
    ctx: &Ctx,
    desk: &Desk,
    values: &BTreeMap<String, String>,
    packed: &Packed,
) -> Result<Vec<Value>, Error> {
    let country = values
        .get("receiver.countryCode")
        .map(|c| c.to_ascii_uppercase())
        .unwrap_or_default();
    let basket = packed.basket(&country);
    let out = quotes::quote(ctx, &desk.actor, &desk.org_id, input_value(basket)).await?;
    Ok(out
        .rates
        .into_iter()
        .map(|r| {
            let cents: u64 = r.total_price.parse().unwrap_or(0);
            json!({
                "rule": r.shipping_rule_id,
                "name": r.service_name,
                "carrier": r.carrier_name,
                "price": format!("{}.{:02} {}", cents / 100, cents % 100, r.currency),
            })
        })
        .collect())
}

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
    let mut values = form_values(&fields);
    values.remove("services");
    values.remove("action");
    // A carrier's offer chosen: its carrier and product are the shipment's.
    if let Some(offer) = values.get("offer").filter(|o| !o.is_empty()).cloned() {
        values.insert("product".into(), offer);
    }
    let mut parts = NewParts::posted(&fields, &values);
    let (body, packed) = new_body(&values, &parts);
    let at_input = |f: &str| {
        packed
            .input_of(f)
            .or_else(|| Some(input_of(f)).filter(|i| !i.is_empty()))
    };
    let none = BTreeMap::new();
    match field(&fields, "action").unwrap_or("create") {
        "more_parcels" => {
            parts.parcels += 1;
            return form(&mut desk, req, ctx, &values, &none, None, &parts).await;
        }
        "more_lines" => {
            parts.lines += 1;
            return form(&mut desk, req, ctx, &values, &none, None, &parts).await;
        }
        "quote" => {
            return match rates(ctx, &desk, &values, &packed).await {
                Ok(rates) => {
                    parts.rates = Some(rates);
                    form(&mut desk, req, ctx, &values, &none, None, &parts).await
                }
                Err(err) if is_refusal(&err) => desk.refused(req, err),
                Err(err) => {
                    let errors = BTreeMap::from([(
                        String::new(),
                        format!("No rates: {}", quote_problem(err)),
                    )]);
                    form(&mut desk, req, ctx, &values, &errors, None, &parts).await
                }
            };
        }
        "carrier_rates" => {
            return match super::carrier_prices::ask(ctx, &desk, body).await {
                Ok(offers) => {
                    parts.carrier_rates = Some(offers);
                    form(&mut desk, req, ctx, &values, &none, None, &parts).await
                }
                Err(Error::Validation(problems)) => {
                    let errors = problems_at(problems, at_input);
                    form(&mut desk, req, ctx, &values, &errors, None, &parts).await
                }
                Err(err) if is_refusal(&err) => desk.refused(req, err),
                Err(err) => {
                    let errors = BTreeMap::from([(String::new(), format!("No prices: {err}"))]);
                    form(&mut desk, req, ctx, &values, &errors, None, &parts).await
                }
            };
        }
        _ => {}
    }
    let made = shipments::create(ctx, &desk.actor, &org, input_value(body)).await;
    match made {
        Ok(shipment) => {
            let id = shipment.shipment.id;
            let rule = values.get("rule").filter(|r| !r.is_empty()).cloned();
            let notice = match rule {
                Some(shipping_rule_id) => {
                    let request = ApplyRuleIn { shipping_rule_id };
                    match shipments::apply_shipping_rule(
                        ctx,
                        &desk.actor,
                        &org,
                        &id,
                        Input::ok(request),
                    )
                    .await
                    {
                        Ok(_) => {
                            "Shipment made with the rate's rule applied. Book it when it is ready."
                                .to_string()
                        }
                        Err(err) => format!("Shipment made, but its rule was not applied: {err}"),
                    }
                }
                None => "Shipment made. Book it when it is ready.".to_string(),
            };
            desk.visit.leave_notice(req, &notice);
            see_other(&desk.path(&format!("shipments/{id}")))
        }
        Err(Error::Validation(problems)) => {
            let errors = problems_at(problems, at_input);
            form(&mut desk, req, ctx, &values, &errors, None, &parts).await
        }
        Err(err) if is_refusal(&err) => desk.refused(req, err),
        Err(err) => {
            let errors = BTreeMap::from([(String::new(), err.to_string())]);
            form(&mut desk, req, ctx, &values, &errors, None, &parts).await
        }
    }
}

/// A quote's failure as the form says it: what is missing for a rate.
fn quote_problem(err: Error) -> String {
    match err {
        Error::Validation(problems) => problems
            .iter()
            .map(|p| match p.field.as_str() {
                "destination.country" => "the receiver's country is needed".to_string(),
                f if f.starts_with("items") => format!("the goods: {}", p.message),
                f => format!("{f} {}", p.message),
            })
            .collect::<Vec<_>>()
            .join("; "),
        other => other.to_string(),
    }
}

/// The shipment body (SPEC §2 ShipmentIn) the form's values describe.
pub(super) fn body_of(values: &BTreeMap<String, String>) -> Value {
    let get = |name: &str| values.get(name).cloned().unwrap_or_default();
    let mut receiver = json!({"type": "receiver"});
    for (name, _, key, _, _) in RECEIVER {
        let value = get(name);
        if !value.is_empty() {
            receiver[key] = json!(value);
        } else if RECEIVER.iter().any(|r| r.0 == name && r.3) {
            receiver[key] = json!("");
        }
    }
    if let Some(code) = receiver["countryCode"].as_str() {
        receiver["countryCode"] = json!(code.to_ascii_uppercase());
    }
    let (carrier, product) = get("product")
        .split_once('|')
        .map(|(c, p)| (c.to_string(), p.to_string()))
        .unwrap_or_default();
    let weight = get("weight").replace(',', ".");
    let weight = weight.parse::<f64>().map_or(json!(weight), |w| json!(w));
    json!({
        "reference": get("reference"),
        "senderAddressId": get("senderAddressId"),
        "type": "outbound",
        "parties": [receiver],
        "carrierSettings": {"carrierId": carrier, "productId": product},
        "parcels": [{"weight": weight}],
    })
}

/// The form input an error of the body's `field` belongs to ("" for the form as a whole).
pub(super) fn input_of(field: &str) -> String {
    if let Some(key) = field.strip_prefix("parties[0].") {
        return format!("receiver.{key}");
    }
    match field {
        "reference" | "senderAddressId" => field.to_string(),
        "parcels[0].weight" | "parcels" => "weight".to_string(),
        f if f.starts_with("carrierSettings") => "product".to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_becomes_a_shipment_body_and_its_errors_find_their_inputs() {
        let values: BTreeMap<String, String> = [
            ("reference", "ORDER-1"),
            ("senderAddressId", "sad_1"),
            ("product", "car_1|standard"),
            ("weight", "1,5"),
            ("receiver.name", "Jane"),
            ("receiver.countryCode", "dk"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let body = body_of(&values);
        assert_eq!(body["parcels"][0]["weight"], json!(1.5));
        assert_eq!(body["carrierSettings"]["carrierId"], "car_1");
        assert_eq!(body["parties"][0]["countryCode"], "DK");
        assert_eq!(body["parties"][0]["city"], "");
        assert!(body["parties"][0].get("email").is_none());
        assert_eq!(input_of("parties[0].city"), "receiver.city");
        assert_eq!(input_of("parcels[0].weight"), "weight");
        assert_eq!(input_of("carrierSettings.carrierId"), "product");
        assert_eq!(input_of("somethingElse"), "");
    }
}
