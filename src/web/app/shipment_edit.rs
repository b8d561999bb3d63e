//! Editing a shipment before it is booked (DESIGN §20): the New shipment form filled from the
//! shipment, posted as a JSON Merge Patch of what the form shows (reference, sender address,
//! receiver, carrier and product; the weight when it has one parcel), through the same
//! operation as `PATCH /orgs/{orgId}/shipments/{id}`; problems shown in place.

use std::collections::BTreeMap;

use poem::{
    Request, Response, handler,
    web::{Data, Path},
};
use poem_openapi::types::ToJSON;
use serde_json::{Value, json};

use super::{
    Desk, form_values, is_refusal, problems_at,
    shipment_form::{NewParts, RECEIVER, body_of, form, input_of},
};
use crate::{
    error::Error,
    service::{Ctx, input_value, operations as ops, shipments},
    web::page::see_other,
};

/// The form's values for the shipment as it is.
fn values_of(shipment: &Value) -> BTreeMap<String, String> {
    let text = |v: &Value| v.as_str().map(str::to_string);
    let mut values = BTreeMap::new();
    let mut put = |name: &str, value: Option<String>| {
        if let Some(value) = value {
            values.insert(name.to_string(), value);
        }
    };
    put("reference", text(&shipment["reference"]));
    put("senderAddressId", text(&shipment["senderAddressId"]));
    let settings = &shipment["carrierSettings"];
    put(
        "product",
        Some(format!(
            "{}|{}",
            settings["carrierId"].as_str().unwrap_or_default(),
            settings["productId"].as_str().unwrap_or_default()
        )),
    );
    if let Some(weight) = shipment["parcels"][0]["weight"].as_f64() {
        put("weight", Some(weight.to_string()));
    }
    let receiver = shipment["parties"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["type"] == "receiver"))
        .cloned()
        .unwrap_or_default();
    for (name, _, key, _, _) in RECEIVER {
        put(name, text(&receiver[key]));
    }
    values
}

async fn editable(desk: &mut Desk, req: &Request, ctx: &Ctx, id: &str) -> Result<Value, Response> {
    if let Some(refused) = desk.require(req, &ops::UPDATE_SHIPMENT) {
        return Err(refused);
    }
    let shipment = match shipments::get(ctx, &desk.actor, &desk.org_id, id).await {
        Ok(shipment) => shipment,
        Err(err) => return Err(desk.refused(req, err)),
    };
    if !shipment.shipment.status.is_unbooked() {
        desk.visit
            .leave_notice(req, "Only a shipment that is not booked yet can be edited.");
        return Err(see_other(&desk.path(&format!("shipments/{id}"))));
    }
    Ok(shipment.to_json().unwrap_or_default())
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
    let shipment = match editable(&mut desk, req, ctx, &id).await {
        Ok(shipment) => shipment,
        Err(answer) => return answer,
    };
    form(
        &mut desk,
        req,
        ctx,
        &values_of(&shipment),
        &BTreeMap::new(),
        Some(&id),
        &NewParts::default(),
    )
    .await
}

#[handler]
pub async fn submit(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path((org, id)): Path<(String, String)>,
    body: Vec<u8>,
) -> Response {
    let (mut desk, fields) = match Desk::open_form(req, ctx, &org, &body).await {
        Ok(opened) => opened,
        Err(answer) => return answer,
    };
    let shipment = match editable(&mut desk, req, ctx, &id).await {
        Ok(shipment) => shipment,
        Err(answer) => return answer,
    };
    let values = form_values(&fields);
    let wanted = body_of(&values);
    // The receiver replaces the old one, first (so that its problems name `parties[0]`, as the
    // form's inputs); the other parties stay as they are.
    let mut parties: Vec<Value> = wanted["parties"].as_array().cloned().unwrap_or_default();
    parties.extend(
        shipment["parties"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["type"] != "receiver")
            .cloned(),
    );
    let mut patch = json!({
        "reference": wanted["reference"],
        "senderAddressId": wanted["senderAddressId"],
        "parties": parties,
        "carrierSettings": {
            "carrierId": wanted["carrierSettings"]["carrierId"],
            "productId": wanted["carrierSettings"]["productId"],
        },
    });
    // One parcel: its weight is the form's (its id and lines kept); several: left alone.
    if let Some([only]) = shipment["parcels"].as_array().map(Vec::as_slice) {
        let mut parcel = only.clone();
        parcel["weight"] = wanted["parcels"][0]["weight"].clone();
        patch["parcels"] = json!([parcel]);
    }
    let edited = shipments::update(ctx, &desk.actor, &org, &id, input_value(patch)).await;
    match edited {
        Ok(_) => {
            desk.visit.leave_notice(req, "The shipment is changed.");
            see_other(&desk.path(&format!("shipments/{id}")))
        }
        Err(Error::Validation(problems)) => {
            let errors = problems_at(problems, |f| Some(input_of(f)).filter(|i| !i.is_empty()));
            form(
                &mut desk,
                req,
                ctx,
                &values,
                &errors,
                Some(&id),
                &NewParts::default(),
            )
            .await
        }
        Err(err) if is_refusal(&err) => desk.refused(req, err),
        Err(err) => {
            let errors = BTreeMap::from([(String::new(), err.to_string())]);
            form(
                &mut desk,
                req,
                ctx,
                &values,
                &errors,
                Some(&id),
                &NewParts::default(),
            )
            .await
        }
    }
}
