//! Shipments (DESIGN §20): the list with status tabs, a reference search and paging; a
//! shipment's page with its parties, parcels, documents and tracking, and the actions its state
//! allows (book, cancel, make a return).

use minijinja::context;
use poem::{
    Request, Response, handler,
    web::{Data, Path, Query},
};
use poem_openapi::types::ToJSON;

use serde::{Deserialize, Serialize};

use super::Desk;
use crate::{
    error::Error,
    model::{
        shipment::{BookIn, ShipmentLine},
        status::ShipmentStatus,
    },
    service::{Ctx, Input, PageParams, operations as ops, shipments},
    web::page::{field, see_other, to_minute, to_value},
};

#[derive(Debug, Default, Deserialize)]
pub struct ListParams {
    status: Option<String>,
    page: Option<String>,
    q: Option<String>,
    carrier: Option<String>,
    from: Option<String>,
    to: Option<String>,
}

/// What the list's table and pager show of a page of shipments.
#[derive(Serialize)]
struct ListPage {
    data: Vec<ListRow>,
    limit: u64,
    page: u64,
    total: u64,
}

/// A row of the table as it reads: the status and the creation time in words.
#[derive(Serialize)]
struct ListRow {
    id: String,
    reference: String,
    status: String,
    product: String,
    ship_from: String,
    made: String,
}

impl ListRow {
    fn new((line, ship_from): (ShipmentLine, String)) -> ListRow {
        ListRow {
            status: line.status.replace('_', " "),
            made: to_minute(&line.created_at),
            id: line.id,
            reference: line.reference,
            product: line.product_id,
            ship_from,
        }
    }
}

#[handler]
pub async fn list(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path(org): Path<String>,
    Query(params): Query<ListParams>,
) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    let status = params.status.filter(|s| ShipmentStatus::parse(s).is_some());
    let day = |d: Option<String>, time: &str| {
        d.filter(|d| !d.trim().is_empty())
            .map(|d| format!("{}T{time}Z", d.trim()))
    };
    let query = shipments::ListQuery {
        page: PageParams {
            page: params.page.clone(),
            limit: Some("50".into()),
        },
        status: status.clone(),
        search: params.q.clone().filter(|q| !q.trim().is_empty()),
        carrier_id: params.carrier.clone().filter(|c| !c.is_empty()),
        created_from: day(params.from.clone(), "00:00:00.000"),
        created_to: day(params.to.clone(), "23:59:59.999"),
        ..Default::default()
    };
    let (page, error) = match shipments::lines(ctx, &desk.actor, &org, query).await {
        Ok(lines) => (
            to_value(ListPage {
                limit: lines.query.limit.into(),
                page: lines.query.page.into(),
                total: lines.total,
                data: lines.items.into_iter().map(ListRow::new).collect(),
            }),
            None,
        ),
        Err(Error::Validation(errors)) => (
            minijinja::Value::UNDEFINED,
            Some(
                errors
                    .iter()
                    .map(|e| e.message.clone())
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
        ),
        Err(err) => return desk.refused(req, err),
    };
    let keep = super::keep(&[
        ("status", status.as_deref()),
        ("q", params.q.as_deref()),
        ("carrier", params.carrier.as_deref()),
        ("from", params.from.as_deref()),
        ("to", params.to.as_deref()),
    ]);
    let tabs: Vec<&str> = ShipmentStatus::ALL.iter().map(|s| s.as_str()).collect();
    let may_create = desk.may(&ops::CREATE_SHIPMENT);
    let choices = context! {
        book => desk.may(&ops::BOOK_SHIPMENT),
        print => desk.may(&ops::BOOK_SHIPMENT) && desk.station(req).is_some(),
        labels => desk.may(&ops::MERGE_DOCUMENTS),
    };
    let carriers: Vec<serde_json::Value> = if desk.may(&ops::LIST_CARRIERS) {
        match crate::service::carriers::list(ctx, &desk.actor, &org, PageParams::first(100)).await {
            Ok(list) => list
                .data
                .into_iter()
                .map(|c| serde_json::json!({"id": c.carrier.id, "name": c.carrier.fields.name}))
                .collect(),
            Err(err) => return desk.refused(req, err),
        }
    } else {
        Vec::new()
    };
    let notice = desk.visit.take_notice(req);
    desk.follow_changes(ctx).await;
    desk.render(
        req,
        "app/shipments.html",
        "shipments",
        context! {
            page, tabs, status, error, may_create, keep,
            bulk => choices, notice,
            q => params.q, from => params.from, to => params.to,
            carriers => to_value(carriers), carrier => params.carrier,
        },
    )
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
    shipment_page(&mut desk, req, ctx, &id, None).await
}

pub(super) async fn shipment_page(
    desk: &mut Desk,
    req: &Request,
    ctx: &Ctx,
    id: &str,
    error: Option<String>,
) -> Response {
    let shipment = match shipments::get(ctx, &desk.actor, &desk.org_id, id).await {
        Ok(shipment) => shipment,
        Err(err) => return desk.refused(req, err),
    };
    let status = shipment.shipment.status;
    let write = desk.may(&ops::BOOK_SHIPMENT);
    let station = desk.station(req);
    let has_labels = shipment
        .documents
        .iter()
        .any(|d| d.document_type == crate::model::document::LABEL);
    let actions = context! {
        book => write && status.is_unbooked(),
        book_print => write && status.is_unbooked() && station.is_some(),
        print => write && has_labels && station.is_some(),
        cancel => write && status.can_move(ShipmentStatus::Cancelled),
        return_shipment => write && status.has_left() && shipment.shipment.kind == "outbound",
        split => desk.may(&ops::SPLIT_PARCEL) && status.is_unbooked(),
    };
    // The carrier by its name, when the role may read carriers.
    let carrier_id = &shipment.shipment.body.carrier_settings.carrier_id;
    let carrier = if desk.may(&ops::GET_CARRIER) {
        crate::service::carriers::get(ctx, &desk.actor, &desk.org_id, carrier_id)
            .await
            .map(|c| c.carrier.fields.name)
            .ok()
    } else {
        None
    };
    let moves: Vec<&str> = ShipmentStatus::ALL
        .iter()
        .filter(|to| **to != ShipmentStatus::Cancelled && status.can_move(**to))
        .map(|to| to.as_str())
        .collect();
    let moves = if write { moves } else { Vec::new() };
    let rules = if status.is_unbooked() && desk.may(&ops::APPLY_SHIPPING_RULE) {
        match crate::service::shipping_rules::list(
            ctx,
            &desk.actor,
            &desk.org_id,
            PageParams::first(100),
        )
        .await
        {
            Ok(page) => page
                .data
                .into_iter()
                .map(|r| serde_json::json!({"id": r.rule.id, "name": r.rule.fields.name}))
                .collect(),
            Err(err) => return desk.refused(req, err),
        }
    } else {
        Vec::new()
    };
    // The receiver's e-mails about it, when the role may read them.
    let mails = if desk.may(&ops::LIST_SHIPMENT_NOTIFICATIONS) {
        crate::service::mail::list(ctx, &desk.actor, &desk.org_id, id, PageParams::first(20))
            .await
            .map(|page| to_value(page.to_json().unwrap_or_default()))
            .ok()
    } else {
        None
    };
    let notice = desk.visit.take_notice(req);
    desk.follow_changes(ctx).await;
    desk.render(
        req,
        "app/shipment.html",
        "shipments",
        context! {
            shipment => to_value(shipment.to_json().unwrap_or_default()),
            actions, error, notice, moves, rules => to_value(rules), mails,
            carrier => carrier.unwrap_or_else(|| carrier_id.clone()),
        },
    )
}

/// Most shipments one bulk action takes (the merge's own limit).
const BULK_MAX: usize = 100;

/// `POST /app/{orgId}/shipments`: the selected shipments (`ids`) booked (`action=book`),
/// booked with their labels sent to this station's printer (`book_print`), their labels sent
/// to it again (`print`), or their labels as one PDF in the order selected (`labels`).
#[handler]
pub async fn bulk(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path(org): Path<String>,
    body: Vec<u8>,
) -> Response {
    let (mut desk, fields) = match Desk::open_form(req, ctx, &org, &body).await {
        Ok(opened) => opened,
        Err(answer) => return answer,
    };
    let ids: Vec<String> = fields
        .iter()
        .filter(|(k, _)| k == "ids")
        .map(|(_, v)| v.clone())
        .take(BULK_MAX)
        .collect();
    let back = desk.path("shipments");
    if ids.is_empty() {
        desk.visit.leave_notice(req, "Select shipments first.");
        return see_other(&back);
    }
    let action = field(&fields, "action").unwrap_or_default();
    if action == "labels" {
        let request = crate::model::pdf_merge::DocumentMergeIn {
            shipment_ids: ids,
            document_type: crate::model::document::LABEL.into(),
        };
        let merged =
            crate::service::documents::merge(ctx, &desk.actor, &org, Input::ok(request)).await;
        return match merged {
            Ok(pdf) => Response::builder()
                .content_type("application/pdf")
                .header("Content-Disposition", "inline; filename=\"labels.pdf\"")
                .header("Cache-Control", "private, no-store")
                .body(pdf),
            Err(err) if super::is_refusal(&err) => desk.refused(req, err),
            Err(err) => {
                desk.visit.leave_notice(req, &format!("No labels: {err}"));
                see_other(&back)
            }
        };
    }
    if action == "print" {
        // Booked shipments' labels again, on this station's printer.
        let (mut printed, mut problems) = (0, Vec::new());
        for id in &ids {
            match desk.print_labels(req, ctx, id).await {
                Some(Ok(_)) => printed += 1,
                Some(Err(err)) => problems.push(format!("{id}: {err}")),
                None => {
                    desk.visit
                        .leave_notice(req, "Choose this station's printer on the Scan page first.");
                    return see_other(&back);
                }
            }
        }
        let mut notice = format!(
            "Labels of {printed} of {} sent to this station's printer.",
            ids.len()
        );
        if let Some(first) = problems.first() {
            notice.push_str(&format!(" Not printed: {first}"));
            if problems.len() > 1 {
                notice.push_str(&format!(" (and {} more)", problems.len() - 1));
            }
        }
        desk.visit.leave_notice(req, &notice);
        return see_other(&back);
    }
    if !matches!(action, "book" | "book_print") {
        return desk.refused(req, Error::invalid("action", "no such action"));
    }
    let actor = desk.actor.clone();
    let (mut booked, mut printed, mut problems) = (0, 0, Vec::new());
    for id in &ids {
        let request = BookIn::default();
        match shipments::book(ctx, &actor, &org, id, Input::ok(request)).await {
            Ok(_) => {
                booked += 1;
                if action == "book_print"
                    && desk
                        .print_labels(req, ctx, id)
                        .await
                        .is_some_and(|queued| queued.is_ok())
                {
                    printed += 1;
                }
            }
            Err(err) => problems.push(format!("{id}: {err}")),
        }
    }
    let mut notice = format!("Booked {booked} of {}.", ids.len());
    if action == "book_print" {
        notice.push_str(&format!(
            " Labels of {printed} sent to this station's printer."
        ));
    }
    if let Some(first) = problems.first() {
        notice.push_str(&format!(" Not booked: {first}"));
        if problems.len() > 1 {
            notice.push_str(&format!(" (and {} more)", problems.len() - 1));
        }
    }
    desk.visit.leave_notice(req, &notice);
    see_other(&back)
}

/// `GET /app/{orgId}/shipments/{id}/documents/{documentId}`: the document's file, shown in the
/// browser (a PDF opens ready to print; ZPL downloads).
#[handler]
pub async fn document(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path((org, id, doc)): Path<(String, String, String)>,
) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    match shipments::document(ctx, &desk.actor, &org, &id, &doc).await {
        Ok(download) => {
            let pdf = download.document.format == crate::model::document::PDF;
            let disposition = if pdf { "inline" } else { "attachment" };
            Response::builder()
                .content_type(if pdf {
                    "application/pdf"
                } else {
                    "application/zpl"
                })
                .header(
                    "Content-Disposition",
                    format!("{disposition}; filename=\"{}\"", download.filename),
                )
                .header("Cache-Control", "private, no-store")
                .header("X-Content-Type-Options", "nosniff")
                .body(download.document.content.0)
        }
        Err(err) => desk.refused(req, err),
    }
}

/// `GET /app/{orgId}/shipments/{id}/documents/{documentId}/preview`: a PDF document's first page
/// as a PNG picture, shown on the shipment's page.
#[handler]
pub async fn preview(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path((org, id, doc)): Path<(String, String, String)>,
) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    match shipments::preview(ctx, &desk.actor, &org, &id, &doc).await {
        // A document never changes once made.
        Ok(png) => Response::builder()
            .content_type("image/png")
            .header("Cache-Control", "private, max-age=3600")
            .header("X-Content-Type-Options", "nosniff")
            .body(png),
        Err(err) => desk.refused(req, err),
    }
}
