//! New shipment (DESIGN §20): sender address, receiver, one parcel, and carrier with product
//! from the organization's carriers; posted as the same body REST takes, so its checks are the
//! operation's own, each problem shown next to its input.

use std::collections::BTreeMap;

use minijinja::context;
use poem::{
    Request, Response, handler,
    web::{Data, Path},
};
use serde_json::{Value, json};

use super::{Desk, form_values, is_refusal, orders::choices, problems_at};
use crate::{
    error::Error,
    service::{Ctx, Input, decode_value, operations as ops, shipments},
    web::page::{see_other, to_value},
};

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
    form(
        &mut desk,
        req,
        ctx,
        &BTreeMap::new(),
        &BTreeMap::new(),
        None,
    )
    .await
}

/// The shipment form: new, or editing the shipment `editing` (its id).
pub(super) async fn form(
    desk: &mut Desk,
    req: &Request,
    ctx: &Ctx,
    values: &BTreeMap<String, String>,
    errors: &BTreeMap<String, String>,
    editing: Option<&str>,
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
    desk.render(
        req,
        "app/shipment_new.html",
        "new",
        context! {
            receiver => to_value(receiver), products => to_value(products),
            addresses => to_value(&choices["senderAddresses"]["data"]),
            values => to_value(values), errors => to_value(errors), general, editing,
        },
    )
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
    let values = form_values(&fields);
    let made = shipments::create(
        ctx,
        &desk.actor,
        &org,
        Input::new(decode_value(body_of(&values))),
    )
    .await;
    match made {
        Ok(shipment) => {
            desk.visit
                .leave_notice(req, "Shipment made. Book it when it is ready.");
            see_other(&desk.path(&format!("shipments/{}", shipment.shipment.id)))
        }
        Err(Error::Validation(problems)) => {
            let errors = problems_at(problems, |f| Some(input_of(f)).filter(|i| !i.is_empty()));
            form(&mut desk, req, ctx, &values, &errors, None).await
        }
        Err(err) if is_refusal(&err) => desk.refused(req, err),
        Err(err) => {
            let errors = BTreeMap::from([(String::new(), err.to_string())]);
            form(&mut desk, req, ctx, &values, &errors, None).await
        }
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
