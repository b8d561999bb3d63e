//! End of day: close a carrier's day (its booked shipments not in a manifest
//! yet), see the manifests, open or print their PDF; through the same `create_manifest`,
//! `get_manifest` and `print_manifest` operations as REST and MCP.

use std::collections::BTreeMap;

use minijinja::context;
use poem::{
    IntoResponse, Request, Response, handler,
    http::header,
    web::{Data, Path, Query},
};
use serde_json::{Value, json};

use super::{
    Desk, form_values, is_refusal,
    pickups::{CarrierChoices, PageOnly},
};
use crate::{
    error::Error,
    model::manifest::{ManifestIn, ManifestPrintIn},
    service::{Ctx, Input, PageParams, manifests, operations as ops, printers},
    web::page::{see_other, to_value},
};

const PATH: &str = "end-of-day";

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
    page(
        &mut desk,
        req,
        ctx,
        params.page,
        &BTreeMap::new(),
        &BTreeMap::new(),
    )
    .await
}

/// `POST /app/{orgId}/end-of-day`: `action=close` with `carrierId` (and `date`), or
/// `action=print` with `manifestId` and `printerId`.
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
    let value = |name: &str| values.get(name).cloned().unwrap_or_default();
    let done = if value("action") == "print" {
        let request = ManifestPrintIn {
            printer_id: value("printerId"),
        };
        manifests::print(
            ctx,
            &desk.actor,
            &org,
            &value("manifestId"),
            Input::ok(request),
        )
        .await
        .map(|_| "The manifest is sent to the printer.".to_string())
    } else {
        let request = ManifestIn {
            carrier_id: value("carrierId"),
            date: Some(value("date")).filter(|d| !d.is_empty()),
        };
        manifests::create(ctx, &desk.actor, &org, Input::ok(request))
            .await
            .map(|m| {
                let refused = if m.refused.is_empty() {
                    String::new()
                } else {
                    format!(" The carrier refused {} (they stay open).", m.refused.len())
                };
                format!(
                    "Day closed: {} shipment{}, {} parcel{}, {} kg.{refused}",
                    m.shipment_count,
                    if m.shipment_count == 1 { "" } else { "s" },
                    m.parcel_count,
                    if m.parcel_count == 1 { "" } else { "s" },
                    m.total_weight
                )
            })
    };
    match done {
        Ok(notice) => {
            desk.visit.leave_notice(req, &notice);
            see_other(&desk.path(PATH))
        }
        Err(err) if is_refusal(&err) => desk.refused(req, err),
        Err(Error::Validation(problems)) => {
            let errors = problems
                .into_iter()
                .map(|p| (p.field, p.message))
                .collect::<BTreeMap<_, _>>();
            page(&mut desk, req, ctx, None, &values, &errors).await
        }
        Err(err) => {
            let errors = BTreeMap::from([(String::new(), err.to_string())]);
            page(&mut desk, req, ctx, None, &values, &errors).await
        }
    }
}

/// `GET /app/{orgId}/end-of-day/{id}/pdf`: the manifest's PDF, to open or save.
#[handler]
pub async fn pdf(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path((org, id)): Path<(String, String)>,
) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    match manifests::get(ctx, &desk.actor, &org, &id).await {
        Ok(manifest) => {
            let name = manifests::filename(&manifest);
            manifest
                .document
                .content
                .0
                .with_content_type("application/pdf")
                .with_header(
                    header::CONTENT_DISPOSITION,
                    format!("inline; filename=\"{name}\""),
                )
                .into_response()
        }
        Err(err) => desk.refused(req, err),
    }
}

async fn page(
    desk: &mut Desk,
    req: &Request,
    ctx: &Ctx,
    page_number: Option<String>,
    values: &BTreeMap<String, String>,
    errors: &BTreeMap<String, String>,
) -> Response {
    let params = PageParams {
        page: page_number,
        limit: Some("20".into()),
    };
    let list = match manifests::list(ctx, &desk.actor, &desk.org_id, params).await {
        Ok(list) => list,
        Err(err) => return desk.refused(req, err),
    };
    let may_close = desk.may(&ops::CREATE_MANIFEST);
    let carriers = match CarrierChoices::of(ctx, desk).await {
        Ok(carriers) => carriers,
        Err(err) => return desk.refused(req, err),
    };
    let printers: Vec<Value> = if desk.may(&ops::PRINT_MANIFEST) && desk.may(&ops::LIST_PRINTERS) {
        printers::list(ctx, &desk.actor, &desk.org_id, PageParams::first(100))
            .await
            .map(|page| {
                page.data
                    .into_iter()
                    .filter(|p| p.fields.format == crate::model::document::PDF)
                    .map(|p| json!({"value": p.id, "label": p.fields.name}))
                    .collect()
            })
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let rows: Vec<Value> = list
        .data
        .iter()
        .map(|m| {
            json!({
                "id": m.id,
                "date": m.date,
                "carrier": carriers.name(&m.carrier_id),
                "shipments": m.shipment_count,
                "parcels": m.parcel_count,
                "weight": crate::carriers::label::display_weight(m.total_weight),
                "carrierClosed": m.carrier_closed,
                "refused": m.refused.len(),
            })
        })
        .collect();
    let page_info = json!({"page": list.page, "limit": list.limit, "total": list.total});
    let notice = desk.visit.take_notice(req);
    desk.render(
        req,
        "app/end_of_day.html",
        "end-of-day",
        context! {
            manifests => to_value(json!(rows)),
            page => to_value(page_info),
            keep => "",
            carriers => to_value(json!(carriers.options)),
            printers => to_value(json!(printers)),
            values => to_value(json!(values)),
            errors => to_value(json!(errors)), general => errors.get(""),
            may_close, notice,
        },
    )
}
