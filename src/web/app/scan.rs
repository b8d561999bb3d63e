//! Scan (DESIGN §20): one focused field for a barcode scanner or the keyboard. A code opens the
//! order (by order number) or the shipment (by reference) it names; sent (Enter), a ready
//! shipment is booked at once and its labels go to this station's printer, which is chosen
//! here once per browser.

use minijinja::context;
use poem::{
    Request, Response, handler,
    web::{Data, Path, Query},
};
use serde::Deserialize;

use super::Desk;
use crate::{
    model::shipment::BookIn,
    service::{Ctx, Input, PageParams, orders, shipments},
    web::page::{field, see_other},
};

#[derive(Debug, Default, Deserialize)]
pub struct ScanParams {
    code: Option<String>,
}

/// What a code names.
enum Found {
    Order(String),
    Shipment { id: String, unbooked: bool },
    Nothing,
}

async fn find(ctx: &Ctx, desk: &Desk, code: &str) -> crate::error::Result<Found> {
    let query = shipments::ListQuery {
        page: PageParams::first(1),
        reference: Some(code.to_string()),
        ..Default::default()
    };
    if desk.may(&crate::service::operations::LIST_SHIPMENTS) {
        let page = shipments::list(ctx, &desk.actor, &desk.org_id, query).await?;
        if let Some(found) = page.data.first() {
            return Ok(Found::Shipment {
                id: found.id.clone(),
                unbooked: found.status.is_unbooked(),
            });
        }
    }
    if desk.may(&crate::service::operations::LIST_ORDERS) {
        let query = orders::ListQuery {
            page: PageParams::first(1),
            status: None,
            order_channel_id: None,
            order_number: Some(code.to_string()),
        };
        let page = orders::list(ctx, &desk.actor, &desk.org_id, query).await?;
        if let Some(order) = page.data.first() {
            return Ok(Found::Order(order.order.id.clone()));
        }
    }
    // A tracking number (scanned off a label): the one shipment it names, if only one.
    if desk.may(&crate::service::operations::LIST_SHIPMENTS) && !code.contains(char::is_whitespace)
    {
        let query = shipments::ListQuery {
            page: PageParams::first(2),
            search: Some(code.to_string()),
            ..Default::default()
        };
        let page = shipments::list(ctx, &desk.actor, &desk.org_id, query).await?;
        if let [found] = page.data.as_slice() {
            return Ok(Found::Shipment {
                id: found.id.clone(),
                unbooked: found.status.is_unbooked(),
            });
        }
    }
    Ok(Found::Nothing)
}

#[handler]
pub async fn show(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path(org): Path<String>,
    Query(params): Query<ScanParams>,
) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    let code = params
        .code
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty());
    let mut missing = None;
    if let Some(code) = &code {
        match find(ctx, &desk, code).await {
            Ok(Found::Order(id)) => return see_other(&desk.path(&format!("orders/{id}"))),
            Ok(Found::Shipment { id, .. }) => {
                return see_other(&desk.path(&format!("shipments/{id}")));
            }
            Ok(Found::Nothing) => missing = Some(code.clone()),
            Err(err) => return desk.refused(req, err),
        }
    }
    let printers = if desk.may(&crate::service::operations::LIST_PRINTERS) {
        match crate::service::printers::list(ctx, &desk.actor, &org, PageParams::first(100)).await {
            Ok(page) => page
                .data
                .into_iter()
                .map(|p| serde_json::json!({"id": p.id, "name": p.fields.name, "format": p.fields.format}))
                .collect(),
            Err(err) => return desk.refused(req, err),
        }
    } else {
        Vec::new()
    };
    let station = desk.station(req);
    let notice = desk.visit.take_notice(req);
    desk.render(
        req,
        "app/scan.html",
        "scan",
        context! { missing, notice, printers => crate::web::page::to_value(printers), station },
    )
}

/// `POST /app/{orgId}/scan`: the code's shipment booked when it is ready, else opened.
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
    if field(&fields, "action") == Some("station") {
        let printer = field(&fields, "printerId").unwrap_or_default();
        desk.choose_station(req, printer);
        desk.visit.leave_notice(
            req,
            "This browser prints on that printer from now on (Book and print, Scan).",
        );
        return see_other(&desk.path("scan"));
    }
    let code = field(&fields, "code")
        .unwrap_or_default()
        .trim()
        .to_string();
    match find(ctx, &desk, &code).await {
        Ok(Found::Shipment { id, unbooked: true }) => {
            let request = BookIn::default();
            let actor = desk.actor.clone();
            let notice = match shipments::book(ctx, &actor, &org, &id, Input::ok(request)).await {
                Ok(_) => match desk.print_labels_said(req, ctx, &id).await {
                    Some(printed) => format!("{code} is booked. {printed}"),
                    None => format!("{code} is booked: its labels are ready."),
                },
                Err(err) => format!("{code} was not booked: {err}"),
            };
            desk.visit.leave_notice(req, &notice);
            see_other(&desk.path(&format!("shipments/{id}")))
        }
        Ok(Found::Shipment { id, .. }) => see_other(&desk.path(&format!("shipments/{id}"))),
        Ok(Found::Order(id)) => see_other(&desk.path(&format!("orders/{id}"))),
        Ok(Found::Nothing) => {
            desk.visit
                .leave_notice(req, &format!("Nothing has the code {code}."));
            see_other(&desk.path("scan"))
        }
        Err(err) => desk.refused(req, err),
    }
}
