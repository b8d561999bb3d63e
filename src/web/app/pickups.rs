//! Pickups: book a carrier's driver for the booked shipments waiting to leave,
//! see the pickups with their confirmation numbers, cancel one; through the same
//! `create_pickup` and `cancel_pickup` operations as REST and MCP.

use std::collections::BTreeMap;

use minijinja::context;
use poem::{
    Request, Response, handler,
    web::{Data, Path, Query},
};
use poem_openapi::types::ToJSON;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Desk, form_values, is_refusal, problems_at};
use crate::{
    error::Error,
    model::{pickup::PickupIn, status::ShipmentStatus},
    service::{
        Ctx, Input, PageParams, carriers, operations as ops, pickups, sender_addresses,
        shipments::{self, ListQuery},
    },
    web::page::{see_other, to_value},
};

const PATH: &str = "pickups";

/// `?page=` of a page with one paged list.
#[derive(Debug, Default, Deserialize)]
pub struct PageOnly {
    pub(super) page: Option<String>,
}

/// The organization's carriers: the options of a select, and their names by id.
pub(super) struct CarrierChoices {
    pub options: Vec<Value>,
    names: BTreeMap<String, String>,
}

impl CarrierChoices {
    /// The carriers the role may see (none when it may not list them).
    pub async fn of(ctx: &Ctx, desk: &Desk) -> crate::error::Result<CarrierChoices> {
        let page =
            match carriers::list(ctx, &desk.actor, &desk.org_id, PageParams::first(100)).await {
                Ok(page) => page.data,
                Err(err) if is_refusal(&err) => Vec::new(),
                Err(err) => return Err(err),
            };
        // Newest first, as the list gives them.
        let options = page
            .iter()
            .map(|c| json!({"value": c.carrier.id, "label": c.carrier.fields.name}))
            .collect();
        let names = page
            .into_iter()
            .map(|c| (c.carrier.id, c.carrier.fields.name))
            .collect();
        Ok(CarrierChoices { options, names })
    }

    /// The name of carrier `id` (its id when it is not known).
    pub fn name<'a>(&'a self, id: &'a str) -> &'a str {
        self.names.get(id).map_or(id, String::as_str)
    }
}

#[handler]
pub async fn show(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path(org): Path<String>,
    Query(params): Query<PageOnly>,
) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    let today = today();
    let values = BTreeMap::from([
        ("date".to_string(), today),
        ("readyFrom".to_string(), "09:00".to_string()),
        ("readyUntil".to_string(), "17:00".to_string()),
    ]);
    page(
        &mut desk,
        req,
        ctx,
        params.page,
        &values,
        &[],
        &BTreeMap::new(),
    )
    .await
}

/// `POST /app/{orgId}/pickups`: `action=book` with the pickup's fields and a `shipment` per
/// chosen shipment, or `action=cancel` with `pickupId`.
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
    let chosen: Vec<String> = fields
        .iter()
        .filter(|(k, v)| k == "shipment" && !v.is_empty())
        .map(|(_, v)| v.clone())
        .collect();
    let values = form_values(&fields);
    let value = |name: &str| values.get(name).cloned().unwrap_or_default();
    if value("action") == "cancel" {
        let said = pickups::cancel(ctx, &desk.actor, &org, &value("pickupId")).await;
        return match said {
            Ok(message) => {
                desk.visit.leave_notice(req, &sentence(&message));
                see_other(&desk.path(PATH))
            }
            Err(err) if is_refusal(&err) => desk.refused(req, err),
            Err(err) => {
                let errors = BTreeMap::from([(String::new(), err.to_string())]);
                page(&mut desk, req, ctx, None, &values, &chosen, &errors).await
            }
        };
    }
    let request = PickupIn {
        carrier_id: value("carrierId"),
        date: value("date"),
        ready_from: value("readyFrom"),
        ready_until: value("readyUntil"),
        sender_address_id: value("senderAddressId"),
        shipment_ids: chosen.clone(),
        note: Some(value("note")).filter(|n| !n.is_empty()),
    };
    match pickups::create(ctx, &desk.actor, &org, Input::ok(request)).await {
        Ok(pickup) => {
            let number = pickup.confirmation_number.unwrap_or_default();
            desk.visit.leave_notice(
                req,
                &format!("Pickup booked for {}: confirmation {number}.", pickup.date),
            );
            see_other(&desk.path(PATH))
        }
        Err(Error::Validation(problems)) => {
            let errors = problems_at(problems, |f| {
                Some(
                    if f.starts_with("shipmentIds") {
                        "shipmentIds"
                    } else {
                        f
                    }
                    .to_string(),
                )
            });
            page(&mut desk, req, ctx, None, &values, &chosen, &errors).await
        }
        Err(err) if is_refusal(&err) => desk.refused(req, err),
        Err(err) => {
            let errors = BTreeMap::from([(String::new(), err.to_string())]);
            page(&mut desk, req, ctx, None, &values, &chosen, &errors).await
        }
    }
}

/// A service message as a sentence of the page's notice.
fn sentence(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

/// Today (UTC) as YYYY-MM-DD, the form's first date.
fn today() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%d").to_string()
}

async fn page(
    desk: &mut Desk,
    req: &Request,
    ctx: &Ctx,
    page_number: Option<String>,
    values: &BTreeMap<String, String>,
    chosen: &[String],
    errors: &BTreeMap<String, String>,
) -> Response {
    let list = pickups::list(
        ctx,
        &desk.actor,
        &desk.org_id,
        PageParams {
            page: page_number,
            limit: Some("20".into()),
        },
    )
    .await;
    let list = match list {
        Ok(list) => list.to_json().unwrap_or_default(),
        Err(err) => return desk.refused(req, err),
    };
    let may_book = desk.may(&ops::CREATE_PICKUP);
    let carriers = match CarrierChoices::of(ctx, desk).await {
        Ok(carriers) => carriers,
        Err(err) => return desk.refused(req, err),
    };
    let (addresses, waiting) = if may_book {
        match choices(ctx, desk, &carriers).await {
            Ok(found) => found,
            Err(err) => return desk.refused(req, err),
        }
    } else {
        (Vec::new(), Vec::new())
    };
    let rows: Vec<Value> = list["data"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let carrier = p["carrierId"].as_str().unwrap_or_default();
            let mut row = p.clone();
            row["carrierName"] = json!(carriers.name(carrier));
            row["open"] = json!(p["status"] != "cancelled");
            row
        })
        .collect();
    let notice = desk.visit.take_notice(req);
    desk.render(
        req,
        "app/pickups.html",
        "pickups",
        context! {
            pickups => to_value(json!(rows)),
            page => to_value(list),
            keep => "",
            carriers => to_value(json!(carriers.options)),
            addresses => to_value(json!(addresses)),
            waiting => to_value(json!(waiting)),
            values => to_value(json!(values)),
            chosen => chosen.to_vec(),
            errors => to_value(json!(errors)), general => errors.get(""),
            may_book, may_cancel => desk.may(&ops::CANCEL_PICKUP), notice,
        },
    )
}

/// The sender addresses to choose from, and the booked shipments that have not left yet
/// (newest first, at most 100).
async fn choices(
    ctx: &Ctx,
    desk: &Desk,
    carriers: &CarrierChoices,
) -> crate::error::Result<(Vec<Value>, Vec<Value>)> {
    let addresses =
        sender_addresses::list(ctx, &desk.actor, &desk.org_id, PageParams::first(100))
            .await?
            .data
            .into_iter()
            .map(|a| {
                json!({"value": a.id,
                       "label": format!("{}, {} {}", a.fields.name, a.fields.zipcode, a.fields.city)})
            })
            .collect();
    let query = ListQuery {
        page: PageParams::first(100),
        status: Some(ShipmentStatus::Processing.as_str().to_string()),
        reference: None,
        order_id: None,
        created_from: None,
        created_to: None,
        search: None,
        carrier_id: None,
    };
    let waiting = shipments::list(ctx, &desk.actor, &desk.org_id, query)
        .await?
        .data
        .into_iter()
        .map(|s| {
            json!({
                "id": s.id,
                "reference": s.reference,
                "carrier": carriers.name(&s.carrier_settings.carrier_id),
                "created": s.created_at.get(..10).unwrap_or_default(),
            })
        })
        .collect();
    Ok((addresses, waiting))
}
