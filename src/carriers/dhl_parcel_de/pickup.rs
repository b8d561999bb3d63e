//! Pickups through DHL's Parcel DE Pickup API v3, written from DHL's published description: a
//! pickup order (`PickupOrder`) at the sender address with one `PAKET` per booked parcel (DHL
//! books each parcel as a shipment of its own, with its own number), confirmed by an order ID
//! that cancels it again (`DELETE /orders?orderID=`). Unlike the Shipping API, the Pickup API
//! takes only a bearer token, which DHL's authentication API issues for the app's key and secret
//! and the business customer's user and password (OAuth 2 password grant); it is kept until
//! shortly before it expires.

use std::time::Duration;

use serde_json::{Value, json};

use super::{NAME, billing_number, host, request, setting};
use crate::{
    carriers::{
        Env, config_str,
        http::{self, Answer},
        pickup::{PickupBooking, PickupRequest},
        wire::cut,
    },
    error::{Error, Result},
    model::carrier::CarrierRecord,
};

const PICKUP: &str = "/parcel/de/transportation/pickup/v3";
/// Where DHL's authentication API issues tokens (the Shipping API description's OAuth 2
/// password flow; the Pickup API's `BearerAuth` names the same call).
const TOKEN: &str = "/parcel/de/account/auth/ropc/v1/token";

/// Books a pickup; DHL's order ID is its confirmation number.
pub(super) async fn book(
    env: &Env,
    carrier: &CarrierRecord,
    pickup: &PickupRequest<'_>,
) -> Result<PickupBooking> {
    // Before anything is written or sent: without the secret no token can be had.
    secret(carrier)?;
    let body = order(carrier, pickup)?;
    let url = format!("{}{PICKUP}/orders", host(env, carrier));
    let answer = call(env, carrier, reqwest::Method::POST, &url, |b| b.json(&body)).await?;
    let json = answer.json();
    if !answer.status.is_success() {
        return Err(refusal(&answer, &json, "the pickup"));
    }
    let confirmation = &json["confirmation"];
    let order_id = confirmation["value"]["orderID"]
        .as_str()
        .map(str::trim)
        .filter(|id| !id.is_empty());
    match order_id {
        Some(id) if confirmation["type"] != "VALIDATION" => Ok(PickupBooking {
            confirmation_number: id.to_string(),
        }),
        _ => Err(Error::CarrierUncertain(format!(
            "{NAME} answered the pickup order without its order ID; whether it booked the pickup cannot be told"
        ))),
    }
}

/// Cancels the pickup DHL confirmed as `order_id`; done when DHL had cancelled it already.
pub(super) async fn cancel(env: &Env, carrier: &CarrierRecord, order_id: &str) -> Result<()> {
    let url = format!("{}{PICKUP}/orders", host(env, carrier));
    let answer = call(env, carrier, reqwest::Method::DELETE, &url, |b| {
        b.query(&[("orderID", order_id)])
    })
    .await?;
    let json = answer.json();
    if !answer.status.is_success() {
        return Err(refusal(&answer, &json, "cancelling the pickup"));
    }
    let failed = json["failedCancellations"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|f| f["orderID"].as_str() == Some(order_id));
    match failed {
        None => Ok(()),
        // STORNIERT: cancelled already.
        Some(f) if f["orderState"] == "STORNIERT" => Ok(()),
        Some(f) => {
            let message = f["message"]
                .as_str()
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .unwrap_or("no reason given");
            let state = match f["orderState"].as_str().filter(|s| !s.is_empty()) {
                Some(state) => format!(" (its state: {state})"),
                None => String::new(),
            };
            Err(Error::CarrierRejected(format!(
                "{NAME} did not cancel pickup {order_id}{state}: {message}"
            )))
        }
    }
}

/// The pickup as DHL's `PickupOrder`. The pickup times go into the order's `businessHours`, where
/// the schema puts them (DHL's examples put them inside `pickupLocation`).
fn order(carrier: &CarrierRecord, pickup: &PickupRequest<'_>) -> Result<Value> {
    let address = &pickup.address.fields;
    let (street, house) = request::street_and_house(&address.address1).ok_or_else(|| {
        Error::InvalidState(format!(
            "{NAME}'s pickups need a house number in the sender address's street ({:?})",
            address.address1
        ))
    })?;
    let mut location = json!({
        "name1": cut(address.name.trim(), 50),
        "addressStreet": cut(&street, 70),
        "addressHouse": cut(&house, 10),
        "postalCode": cut(address.zipcode.trim(), 7),
        "city": cut(address.city.trim(), 35),
    });
    if let Some(more) = address
        .address2
        .as_deref()
        .map(str::trim)
        .filter(|a| !a.is_empty())
    {
        location["name2"] = json!(cut(more, 50));
    }
    // DHL's Pickup API takes ISO alpha-2 (its Shipping API alpha-3).
    if address.country_code.len() == 2 {
        location["country"] = json!(address.country_code.to_ascii_uppercase());
    }
    let mut contact = json!({"name": cut(address.att_contact.trim(), 50)});
    if !address.phone.trim().is_empty() {
        contact["phone"] = json!(cut(address.phone.trim(), 50));
    }
    if !address.email.trim().is_empty() {
        contact["email"] = json!(cut(address.email.trim(), 250));
    }
    let mut details = json!({
        "pickupDate": {"type": "Date", "value": pickup.date},
        "totalWeight": {"uom": "kg", "value": pickup.total_weight_kg()},
    });
    if let Some(note) = pickup.note.map(str::trim).filter(|n| !n.is_empty()) {
        details["comment"] = json!(cut(note, 100));
    }
    let mut shipments = Vec::new();
    for shipment in pickup.shipments {
        let reference = cut(shipment.reference.trim(), 20);
        for parcel in &shipment.body.parcels {
            let mut one = json!({"transportationType": "PAKET", "replacement": false});
            if let Some(number) = parcel.tracking_number.as_deref().filter(|n| !n.is_empty()) {
                one["shipmentNo"] = json!(number);
            }
            if !reference.is_empty() {
                one["customerReference"] = json!(reference);
            }
            shipments.push(one);
        }
    }
    if shipments.is_empty() {
        // Nothing named: DHL is told one parcel.
        shipments.push(json!({"transportationType": "PAKET", "replacement": false}));
    }
    // The billing number of the parcels' product (one carrier's shipments; DHL Paket when the
    // pickup names none).
    let product = pickup
        .shipments
        .iter()
        .map(|s| s.body.carrier_settings.product_id.as_str())
        .find(|p| request::PRODUCTS.iter().any(|(id, _, _)| id == p))
        .unwrap_or("V01PAK");
    let billing = billing_number(carrier, product)?;
    Ok(json!({
        "customerDetails": {"billingNumber": billing},
        "pickupLocation": {"type": "Address", "pickupAddress": location},
        "businessHours": [{"timeFrom": pickup.ready_from, "timeUntil": pickup.ready_until}],
        "contactPerson": [contact],
        "pickupDetails": details,
        "shipmentDetails": {"shipments": shipments},
    }))
}

/// The app's API secret, which DHL's tokens are issued for.
fn secret(carrier: &CarrierRecord) -> Result<String> {
    config_str(carrier, "apiSecret")
        .map(|s| s.into_owned())
        .ok_or_else(|| {
            Error::InvalidState(format!(
                "the {NAME} carrier has no apiSecret; DHL's Pickup API takes a token issued for your app's API key and secret, so set apiSecret in the carrier's config"
            ))
        })
}

/// The key the carrier's token is kept under: where it was issued, for which app and user.
fn token_key(env: &Env, carrier: &CarrierRecord) -> Result<String> {
    Ok(format!(
        "dhl_parcel_de {} {} {}",
        host(env, carrier),
        setting(carrier, "apiKey")?,
        setting(carrier, "username")?
    ))
}

/// An access token for the carrier's app and user: the kept one, else a new one (kept for as
/// long as DHL says it lives).
async fn token(env: &Env, carrier: &CarrierRecord) -> Result<String> {
    let key = token_key(env, carrier)?;
    if let Some(token) = env.tokens.get(&key) {
        return Ok(token);
    }
    let secret = secret(carrier)?;
    // DHL takes every parameter in the body (its authentication API's note).
    let form = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("grant_type", "password")
        .append_pair("username", &setting(carrier, "username")?)
        .append_pair("password", &setting(carrier, "password")?)
        .append_pair("client_id", &setting(carrier, "apiKey")?)
        .append_pair("client_secret", &secret)
        .finish();
    let builder = env
        .http()?
        .post(format!("{}{TOKEN}", host(env, carrier)))
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .header(reqwest::header::ACCEPT, "application/json")
        .body(form);
    // Asking for a token books nothing, whatever became of the request.
    let answer = http::send(NAME, builder).await.map_err(|err| match err {
        Error::CarrierTimeout(_) => Error::CarrierUnavailable(format!(
            "{NAME} did not issue an access token in time; nothing was sent to its Pickup API, try again"
        )),
        other => other,
    })?;
    let body = answer.json();
    if !answer.status.is_success() {
        let status = answer.status.as_u16();
        let reason = body["error_description"]
            .as_str()
            .or(body["error"].as_str())
            .map(str::to_string)
            .unwrap_or_else(|| problem(&body));
        if http::is_unavailable(answer.status) {
            return Err(Error::CarrierUnavailable(format!(
                "{NAME} could not issue an access token (HTTP {status}): {reason}; nothing was sent to its Pickup API, try again"
            )));
        }
        return Err(Error::CarrierRejected(format!(
            "{NAME} issued no access token for the API key and secret, user and password (HTTP {status}): {reason}"
        )));
    }
    let token = body["access_token"]
        .as_str()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            Error::CarrierUnavailable(format!(
                "{NAME} issued no access token; nothing was sent to its Pickup API"
            ))
        })?
        .to_string();
    let seconds = match &body["expires_in"] {
        Value::String(s) => s.trim().parse::<u64>().unwrap_or(0),
        other => other.as_u64().unwrap_or(0),
    };
    env.tokens.put(&key, &token, Duration::from_secs(seconds));
    Ok(token)
}

/// Sends `method url` to the Pickup API with the access token; `finish` adds the query and
/// body. Sent once more with a new token when DHL answers 401 to a kept one (revoked early).
async fn call(
    env: &Env,
    carrier: &CarrierRecord,
    method: reqwest::Method,
    url: &str,
    finish: impl Fn(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
) -> Result<Answer> {
    let build = |token: &str| -> Result<reqwest::RequestBuilder> {
        Ok(finish(
            env.http()?
                .request(method.clone(), url)
                .bearer_auth(token)
                .header(reqwest::header::ACCEPT, "application/json"),
        ))
    };
    let key = token_key(env, carrier)?;
    let kept = env.tokens.get(&key).is_some();
    let answer = http::send(NAME, build(&token(env, carrier).await?)?).await?;
    if answer.status.as_u16() == 401 && kept {
        env.tokens.forget(&key);
        return http::send(NAME, build(&token(env, carrier).await?)?).await;
    }
    Ok(answer)
}

fn refusal(answer: &Answer, body: &Value, what: &str) -> Error {
    let status = answer.status.as_u16();
    if http::is_unavailable(answer.status) {
        return Error::CarrierUnavailable(format!(
            "{NAME}'s Pickup API answered HTTP {status} ({}); nothing was done, try again",
            problem(body)
        ));
    }
    if matches!(status, 401 | 403) {
        return Error::CarrierRejected(format!(
            "{NAME} refused the access token for its Pickup API (HTTP {status}); check that your app at developer.dhl.com may use the Pickup API"
        ));
    }
    Error::CarrierRejected(format!(
        "{NAME} refused {what} (HTTP {status}): {}",
        problem(body)
    ))
}

/// DHL's reasons: its 422 answers a list of errors (`errorCode`, `title`, where: `instance`,
/// and `detail`); other refusals may carry one such object or none.
fn problem(body: &Value) -> String {
    let errors: Vec<&Value> = match body {
        Value::Array(list) => list.iter().collect(),
        Value::Object(_) => vec![body],
        _ => Vec::new(),
    };
    let parts: Vec<String> = errors
        .iter()
        .filter_map(|e| {
            let title = e["title"]
                .as_str()
                .or(e["message"].as_str())
                .map(str::trim)
                .filter(|t| !t.is_empty())?;
            let mut text = match e["instance"].as_str().filter(|i| !i.is_empty()) {
                Some(at) => format!("{at}: {title}"),
                None => title.to_string(),
            };
            if let Some(detail) = e["detail"]
                .as_str()
                .map(str::trim)
                .filter(|d| !d.is_empty() && *d != title)
            {
                text.push_str(&format!(" ({detail})"));
            }
            Some(text)
        })
        .collect();
    if parts.is_empty() {
        "no reason given".into()
    } else {
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dhls_reasons_name_where_and_what() {
        let body = json!([
            {"errorCode": 456, "title": "Unknown billingnumber", "instance": "customerDetails.billingNumber", "detail": "22222222225301"},
            {"errorCode": 12, "title": "Pickup date is a holiday"}
        ]);
        assert_eq!(
            problem(&body),
            "customerDetails.billingNumber: Unknown billingnumber (22222222225301); Pickup date is a holiday"
        );
        assert_eq!(problem(&Value::Null), "no reason given");
        assert_eq!(problem(&json!({"title": "Bad Request"})), "Bad Request");
    }
}
