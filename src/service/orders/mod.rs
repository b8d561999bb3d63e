//! Orders (DESIGN §8): manual creation, reading, cancelling, deleting, shipments for an order,
//! and the one place where an order's status follows its shipments.

use crate::{
    error::{Error, Result},
    model::{
        document::Document,
        ids,
        order::{self, Order, OrderBody, OrderChannel},
        rule::ShippingRule,
        scope::{Resource, Scope},
        shipment::Shipment,
        status,
        validate::Violations,
    },
    service::{
        Actor, Ctx, Input, page_query,
        shipments::{self, Write},
    },
    store::{self, Paged, Tx, orders::Filter},
};

mod for_order;
pub mod shopify;

pub use for_order::{OrderShipment, create_shipment};

const READ: Scope = Scope::read(Resource::Orders);
const WRITE: Scope = Scope::write(Resource::Orders);

/// A manual order (DESIGN §16: orderChannelId and the writable Order fields).
pub struct NewOrder {
    pub order_channel_id: String,
    pub order_number: String,
    pub external_id: Option<String>,
    pub shipping_rule_id: Option<String>,
    pub body: OrderBody,
}

/// An order with its channel, shipments (with their documents) and rule.
pub struct OrderView {
    pub order: Order,
    pub channel: OrderChannel,
    pub shipments: Vec<(Shipment, Vec<Document>)>,
    pub rule: Option<ShippingRule>,
}

/// What the list accepts.
#[derive(Default)]
pub struct ListQuery {
    pub page: Option<i64>,
    pub limit: Option<i64>,
    pub status: Option<String>,
    pub order_channel_id: Option<String>,
    pub order_number: Option<String>,
}

pub(crate) fn view(conn: &rusqlite::Connection, order: Order) -> Result<OrderView> {
    let channel = store::order_channels::get(conn, &order.org_id, &order.order_channel_id)?
        .ok_or(Error::NotFound)?;
    view_with(conn, order, channel)
}

/// `view` for an order whose channel is already at hand.
fn view_with(
    conn: &rusqlite::Connection,
    order: Order,
    channel: OrderChannel,
) -> Result<OrderView> {
    let org_id = order.org_id.clone();
    let shipments = store::orders::shipments(conn, &org_id, &order.id)?
        .into_iter()
        .map(|s| {
            let documents = store::documents::of_shipment(conn, &org_id, &s.id)?;
            Ok((s, documents))
        })
        .collect::<Result<Vec<_>>>()?;
    let rule = match &order.shipping_rule_id {
        Some(id) => store::shipping_rules::get_rule(conn, &org_id, id)?,
        None => None,
    };
    Ok(OrderView {
        order,
        channel,
        shipments,
        rule,
    })
}

fn require(conn: &rusqlite::Connection, org_id: &str, id: &str) -> Result<Order> {
    store::orders::get(conn, org_id, id)?.ok_or(Error::NotFound)
}

/// An order shipments may still be added to (400 on `field` when missing, 409 when cancelled).
pub(crate) fn require_open(
    conn: &rusqlite::Connection,
    org_id: &str,
    id: &str,
    field: &str,
) -> Result<Order> {
    let order = store::orders::get(conn, org_id, id)?
        .ok_or_else(|| Error::invalid(field, format!("no order {id} in this organization")))?;
    if order.status == "cancelled" {
        return Err(Error::InvalidState("the order is cancelled".into()));
    }
    Ok(order)
}

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<NewOrder>,
) -> Result<OrderView> {
    actor.authorize(org_id, WRITE)?;
    let new = input.get()?;
    let mut errors = Violations::new();
    errors.length("orderNumber", &new.order_number, 1, 100);
    if let Some(external) = &new.external_id {
        errors.length("externalId", external, 1, 200);
    }
    new.body.validate(&mut errors);
    errors.finish()?;
    let (org_id, now) = (org_id.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            let channel = store::order_channels::get(tx, &org_id, &new.order_channel_id)?
                .ok_or_else(|| {
                    Error::invalid(
                        "orderChannelId",
                        format!(
                            "no order channel {} in this organization",
                            new.order_channel_id
                        ),
                    )
                })?;
            if channel.kind != "manual" {
                return Err(Error::invalid(
                    "orderChannelId",
                    "orders of a shopify channel come from Shopify",
                ));
            }
            if let Some(rule_id) = &new.shipping_rule_id
                && !store::shipping_rules::exists(tx, &org_id, rule_id)?
            {
                return Err(Error::invalid(
                    "shippingRuleId",
                    format!("no shipping rule {rule_id} in this organization"),
                ));
            }
            if store::orders::number_taken(tx, &org_id, &channel.id, &new.order_number)? {
                return Err(Error::Conflict(format!(
                    "order number {} exists in this channel",
                    new.order_number
                )));
            }
            if let Some(external) = &new.external_id
                && store::orders::by_external_id(tx, &org_id, &channel.id, external)?.is_some()
            {
                return Err(Error::Conflict(format!(
                    "an order with externalId {external} exists in this channel"
                )));
            }
            let order = Order {
                id: ids::new(ids::ORDER),
                org_id: org_id.clone(),
                order_channel_id: channel.id,
                order_number: new.order_number,
                external_id: new.external_id,
                status: "pending".into(),
                shipping_rule_id: new.shipping_rule_id,
                body: new.body,
                created_at: now.clone(),
                updated_at: now,
            };
            store::orders::save(tx, &order)?;
            view(tx, order)
        })
        .await
}

pub async fn list(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    query: ListQuery,
) -> Result<Paged<OrderView>> {
    actor.authorize(org_id, READ)?;
    let page = page_query(query.page, query.limit)?;
    if let Some(status) = &query.status {
        let mut errors = Violations::new();
        errors.one_of("status", status, &order::STATUSES);
        errors.finish()?;
    }
    let filter = Filter {
        status: query.status,
        channel_id: query.order_channel_id,
        order_number: query.order_number,
    };
    let org_id = org_id.to_string();
    ctx.db
        .read(move |c| {
            store::orders::list(c, &org_id, &filter, page)?
                .try_map(|(order, channel)| view_with(c, order, channel))
        })
        .await
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<OrderView> {
    actor.authorize(org_id, READ)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db
        .read(move |c| view(c, require(c, &org_id, &id)?))
        .await
}

/// Deletes an order that has no shipments (SPEC §3; 409 otherwise).
pub async fn delete(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<()> {
    actor.authorize(org_id, WRITE)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db
        .write(move |tx| {
            require(tx, &org_id, &id)?;
            if store::orders::has_shipments(tx, &org_id, &id)? {
                return Err(Error::Conflict(
                    "the order has shipments; it cannot be deleted".into(),
                ));
            }
            store::orders::delete(tx, &org_id, &id)
        })
        .await
}

/// Cancels an order and those of its shipments that have not left (409 once fulfilled).
pub async fn cancel(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<OrderView> {
    actor.authorize(org_id, WRITE)?;
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            let mut order = require(tx, &org_id, &id)?;
            if matches!(order.status.as_str(), "cancelled" | "fulfilled") {
                return Err(Error::InvalidState(format!(
                    "a {} order cannot be cancelled",
                    order.status
                )));
            }
            cancel_in(tx, &mut order, &now)?;
            view(tx, order)
        })
        .await
}

/// Cancels an order and its shipments that have not left, inside the caller's transaction.
pub(crate) fn cancel_in(tx: &Tx, order: &mut Order, now: &str) -> Result<()> {
    set_status(tx, order, "cancelled", now)?;
    for mut shipment in store::orders::shipments(tx, &order.org_id, &order.id)? {
        if status::can_move(&shipment.status, "cancelled") && !status::has_left(&shipment.status) {
            shipment.status = "cancelled".into();
            shipment.updated_at = now.to_string();
            shipments::save(tx, &shipment, Write::Update)?;
        }
    }
    Ok(())
}

/// Brings the order's status in line with its shipments (DESIGN §8). Every shipment write of an
/// order calls this, inside its transaction.
pub(crate) fn follow_shipments(tx: &Tx, org_id: &str, order_id: &str, now: &str) -> Result<()> {
    let Some(mut order) = store::orders::get(tx, org_id, order_id)? else {
        return Ok(());
    };
    let tally = store::orders::tally(tx, org_id, order_id)?;
    let next = order::status_for(&order.status, tally);
    if next != order.status {
        set_status(tx, &mut order, next, now)?;
    }
    Ok(())
}

/// The one place an order's status changes.
fn set_status(tx: &Tx, order: &mut Order, status: &str, now: &str) -> Result<()> {
    order.status = status.to_string();
    order.updated_at = now.to_string();
    store::orders::save(tx, order)
}
