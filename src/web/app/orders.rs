//! Orders (DESIGN §20): the inbox from the order channels and manual orders, by status; an
//! order's page, where its shipment is made (from the organization's carrier and sender
//! address) and booked in one action.

use minijinja::context;
use poem::{
    Request, Response, handler,
    web::{Data, Path, Query},
};
use poem_openapi::types::ToJSON;
use serde::Deserialize;

use super::Desk;
use crate::{
    model::{order::OrderShipmentIn, shipment::BookIn, status::OrderStatus},
    service::{
        Ctx, Input, PageParams, carriers, operations as ops, orders, sender_addresses, shipments,
    },
    web::page::{field, see_other, to_value},
};

#[derive(Debug, Default, Deserialize)]
pub struct ListParams {
    status: Option<String>,
    page: Option<String>,
    q: Option<String>,
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
    let status = params.status.filter(|s| OrderStatus::parse(s).is_some());
    let query = orders::ListQuery {
        page: PageParams {
            page: params.page.clone(),
            limit: Some("50".into()),
        },
        status: status.clone(),
        order_channel_id: None,
        order_number: params.q.clone().filter(|q| !q.trim().is_empty()),
    };
    let page = match orders::list(ctx, &desk.actor, &org, query).await {
        Ok(page) => page.to_json().unwrap_or_default(),
        Err(err) => return desk.refused(req, err),
    };
    let keep = super::keep(&[("status", status.as_deref()), ("q", params.q.as_deref())]);
    let tabs: Vec<&str> = OrderStatus::ALL.iter().map(|s| s.as_str()).collect();
    desk.follow_changes(ctx).await;
    desk.render(
        req,
        "app/orders.html",
        "orders",
        context! { page => to_value(page), tabs, status, q => params.q, keep },
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
    order_page(&mut desk, req, ctx, &id, None).await
}

/// The order's page, with `error` (a refused action) shown in place.
async fn order_page(
    desk: &mut Desk,
    req: &Request,
    ctx: &Ctx,
    id: &str,
    error: Option<String>,
) -> Response {
    let order = match orders::get(ctx, &desk.actor, &desk.org_id, id).await {
        Ok(order) => order,
        Err(err) => return desk.refused(req, err),
    };
    let open = !matches!(
        order.order.status,
        OrderStatus::Cancelled | OrderStatus::Fulfilled
    );
    let may_ship = desk.may(&ops::CREATE_ORDER_SHIPMENT) && open;
    let choices = if may_ship {
        match choices(ctx, desk).await {
            Ok(choices) => choices,
            Err(err) => return desk.refused(req, err),
        }
    } else {
        serde_json::Value::Null
    };
    let notice = desk.visit.take_notice(req);
    desk.follow_changes(ctx).await;
    desk.render(
        req,
        "app/order.html",
        "orders",
        context! {
            order => to_value(order.to_json().unwrap_or_default()),
            may_ship, choices => to_value(choices), error, notice,
        },
    )
}

/// The organization's carriers and sender addresses, for the forms that make a shipment.
pub(super) async fn choices(ctx: &Ctx, desk: &Desk) -> crate::error::Result<serde_json::Value> {
    let carriers = carriers::list(ctx, &desk.actor, &desk.org_id, PageParams::first(100)).await?;
    let addresses =
        sender_addresses::list(ctx, &desk.actor, &desk.org_id, PageParams::first(100)).await?;
    let carriers = carriers.to_json().unwrap_or_default();
    Ok(serde_json::json!({
        "products": products(&carriers),
        "carriers": carriers,
        "senderAddresses": addresses.to_json(),
    }))
}

/// One choice per carrier and product: `carrierId|productId`, named "Carrier · Product".
fn products(carriers: &serde_json::Value) -> Vec<serde_json::Value> {
    let mut options = Vec::new();
    for carrier in carriers["data"].as_array().into_iter().flatten() {
        let (id, name) = (&carrier["id"], &carrier["name"]);
        let slug = carrier["carrierSlug"].as_str().unwrap_or_default();
        let offers = crate::carriers::find(slug)
            .map(|adapter| adapter.info().products)
            .unwrap_or_default();
        for offer in offers {
            options.push(serde_json::json!({
                "value": format!("{}|{}", id.as_str().unwrap_or_default(), offer.id),
                "label": format!("{} · {}", name.as_str().unwrap_or_default(), offer.name),
            }));
        }
    }
    options
}

/// `POST /app/{orgId}/orders/{id}`: `action=ship` makes the order's shipment and books it.
#[handler]
pub async fn act(
    req: &Request,
    Data(ctx): Data<&Ctx>,
    Path((org, id)): Path<(String, String)>,
    body: Vec<u8>,
) -> Response {
    let (mut desk, fields) = match Desk::open_form(req, ctx, &org, &body).await {
        Ok(opened) => opened,
        Err(answer) => return answer,
    };
    let value = |name: &str| field(&fields, name).unwrap_or_default().to_string();
    let (carrier_id, product) = match value("carrier").split_once('|') {
        Some((carrier, product)) => (carrier.to_string(), product.to_string()),
        None => (value("carrier"), String::new()),
    };
    let request = OrderShipmentIn {
        sender_address_id: value("senderAddressId"),
        carrier_id,
        product_id: product,
        services: Vec::new(),
        additional_parameters: Default::default(),
        reference: None,
        parties: None,
        service_point_id: None,
        pickup_details: None,
    };
    let made = orders::create_shipment(ctx, &desk.actor, &org, &id, Input::ok(request)).await;
    let shipment = match made {
        Ok(shipment) => shipment,
        Err(err) if super::is_refusal(&err) => return desk.refused(req, err),
        Err(err) => return order_page(&mut desk, req, ctx, &id, Some(err.to_string())).await,
    };
    let shipment_id = shipment.shipment.id.clone();
    let booked = shipments::book(
        ctx,
        &desk.actor,
        &org,
        &shipment_id,
        Input::ok(BookIn::default()),
    )
    .await;
    let notice = match booked {
        Ok(_) => match desk.print_labels_said(req, ctx, &shipment_id).await {
            Some(printed) => format!("Shipment made and booked. {printed}"),
            None => "Shipment made and booked: its label is ready.".to_string(),
        },
        Err(err) => format!("The shipment was made, but not booked: {err}"),
    };
    desk.visit.leave_notice(req, &notice);
    see_other(&desk.path(&format!("shipments/{shipment_id}")))
}
