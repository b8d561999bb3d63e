//! Orders (DESIGN §8): manual creation, reading, cancelling, deleting, shipments for an order,
//! and settling: the one place where an order's status follows its shipments.

use crate::{
    error::{Error, Result},
    model::{
        event::EventKind,
        ids,
        order::{self, Order, OrderIn, OrderPage, OrderRecord},
        order_channel::{OrderChannelRecord, OrderChannelRef},
        shipment::ShipmentSummary,
        shipping_rule::ShippingRuleSummary,
        status::{OrderStatus, ShipmentStatus},
        validate::Violations,
    },
    service::{
        Actor, Ctx, Input, PageParams,
        emit::Emitter,
        enum_param, operations as ops,
        shipments::{self, Change},
    },
    store::{self, Reader, Tx, orders::Filter},
};

mod for_order;
pub mod shopify;
mod wire;

pub use for_order::create_shipment;
pub use wire::{get_json, list_json};

/// What the list accepts, as the client sent it.
#[derive(Default)]
pub struct ListQuery {
    pub page: PageParams,
    pub status: Option<String>,
    pub order_channel_id: Option<String>,
    pub order_number: Option<String>,
}

/// An order with its channel, its shipments (with their documents) and its rule.
pub(crate) fn view(db: &Reader, order: OrderRecord) -> Result<Order> {
    let channel = store::order_channels::get(db, &order.org_id, &order.order_channel_id)?
        .ok_or_else(|| Error::internal(format!("order {} has no channel", order.id)))?;
    view_with(db, order, channel)
}

/// `view` for an order whose channel is already at hand.
fn view_with(db: &Reader, order: OrderRecord, channel: OrderChannelRecord) -> Result<Order> {
    let org_id = order.org_id.clone();
    let shipments = store::orders::shipments(db, &org_id, &order.id)?
        .into_iter()
        .map(|s| {
            let documents = store::documents::of_shipment(db, &org_id, &s.id)?;
            Ok(ShipmentSummary::new(s, documents))
        })
        .collect::<Result<Vec<_>>>()?;
    let shipping_rule = match &order.shipping_rule_id {
        Some(id) => store::shipping_rules::get_rule(db, &org_id, id)?
            .as_ref()
            .map(ShippingRuleSummary::from),
        None => None,
    };
    Ok(Order {
        order,
        order_channel: OrderChannelRef {
            id: channel.id,
            name: channel.name,
            kind: channel.kind,
        },
        shipments,
        shipping_rule,
    })
}

fn require(db: &Reader, org_id: &str, id: &str) -> Result<OrderRecord> {
    store::orders::get(db, org_id, id)?.ok_or(Error::NotFound)
}

/// Every order write passes through here, inside the caller's unit of work: the order is
/// written and the events of DESIGN §9 are emitted with the order as it now is. `before` is the
/// order as it was (None for a new one).
pub(crate) fn save(tx: &Tx, order: &OrderRecord, before: Option<&OrderRecord>) -> Result<()> {
    store::orders::save(tx, order)?;
    let mut events = Emitter::new(tx, &order.org_id, &order.updated_at, || {
        view(tx, order.clone())
    });
    match before {
        None => events.emit(EventKind::OrderCreated)?,
        Some(before) => {
            let unchanged = OrderRecord {
                updated_at: order.updated_at.clone(),
                ..before.clone()
            } == *order;
            if !unchanged {
                events.emit(EventKind::OrderUpdated)?;
            }
            if before.status != order.status && order.status == OrderStatus::Cancelled {
                events.emit(EventKind::OrderCancelled)?;
            }
        }
    }
    Ok(())
}

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<OrderIn>,
) -> Result<Order> {
    let grant = actor.authorize(org_id, &ops::CREATE_ORDER)?;
    let new = input.get()?;
    let body = new.body();
    let mut errors = Violations::new();
    errors.length("orderNumber", &new.order_number, 1, 100);
    if let Some(external) = &new.external_id {
        errors.length("externalId", external, 1, 200);
    }
    body.validate(&mut errors);
    errors.finish()?;
    let (org_id, now, id) = (org_id.to_string(), ctx.now(), ids::new(ids::ORDER));
    ctx.commit(grant.on(&id), move |tx| {
        let channel =
            store::order_channels::get(tx, &org_id, &new.order_channel_id)?.ok_or_else(|| {
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
        let order = OrderRecord {
            id,
            org_id: org_id.clone(),
            order_channel_id: channel.id.clone(),
            order_number: new.order_number,
            external_id: new.external_id,
            status: OrderStatus::Pending,
            shipping_rule_id: new.shipping_rule_id,
            body,
            created_at: now.clone(),
            updated_at: now,
        };
        save(tx, &order, None)?;
        view_with(tx, order, channel)
    })
    .await
}

impl ListQuery {
    /// The page and the filter, or what is wrong with them.
    fn parse(self) -> Result<(store::PageQuery, Filter)> {
        let mut errors = Violations::new();
        let page = self.page.parse(&mut errors);
        let status = enum_param(
            &mut errors,
            "status",
            self.status,
            OrderStatus::parse,
            OrderStatus::names,
        );
        errors.finish()?;
        let filter = Filter {
            status,
            channel_id: self.order_channel_id,
            order_number: self.order_number,
        };
        Ok((page, filter))
    }
}

pub async fn list(ctx: &Ctx, actor: &Actor, org_id: &str, query: ListQuery) -> Result<OrderPage> {
    actor.authorize(org_id, &ops::LIST_ORDERS)?;
    let (page, filter) = query.parse()?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |db| {
            store::orders::list(db, &org_id, &filter, page)?
                .try_map(|(order, channel)| view_with(db, order, channel))
        })
        .await
        .map(Into::into)
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<Order> {
    actor.authorize(org_id, &ops::GET_ORDER)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db.point(|db| view(db, require(db, &org_id, &id)?))
}

/// Deletes an order that has no shipments (SPEC §3; 409 otherwise).
pub async fn delete(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<()> {
    let grant = actor.authorize(org_id, &ops::DELETE_ORDER)?.on(id);
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.write(grant, move |tx| {
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
pub async fn cancel(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<Order> {
    let grant = actor.authorize(org_id, &ops::CANCEL_ORDER)?.on(id);
    // Booked shipments are taken back at their carriers first, where the carrier does that;
    // when one refuses, the order and its shipments stay as they are.
    let (org, oid) = (org_id.to_string(), id.to_string());
    let booked: Vec<String> = ctx.db.point(move |db| {
        Ok(store::orders::shipments(db, &org, &oid)?
            .into_iter()
            .filter(|s| s.status == ShipmentStatus::Processing)
            .map(|s| s.id)
            .collect())
    })?;
    for shipment_id in booked {
        shipments::void_booked(ctx, org_id, &shipment_id).await?;
    }
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.commit(grant, move |tx| {
        let before = require(tx, &org_id, &id)?;
        if !before.can_be_cancelled() {
            return Err(Error::InvalidState(format!(
                "a {} order cannot be cancelled",
                before.status
            )));
        }
        let mut order = before.clone();
        cancel_in(tx, &mut order, &before, &now)?;
        view(tx, order)
    })
    .await
}

/// Cancels the shipments of an order that have not left, then the order (`order` may carry
/// other changes of the same write; `before` is the order as it was), inside the caller's
/// transaction.
pub(crate) fn cancel_in(
    tx: &Tx,
    order: &mut OrderRecord,
    before: &OrderRecord,
    now: &str,
) -> Result<()> {
    for shipment in store::orders::shipments(tx, &order.org_id, &order.id)? {
        if shipment.status.can_move(ShipmentStatus::Cancelled) && !shipment.status.has_left() {
            let mut cancelled = shipment.clone();
            cancelled.status = ShipmentStatus::Cancelled;
            cancelled.updated_at = now.to_string();
            shipments::save(tx, &cancelled, Change::Updated(&shipment), &[])?;
        }
    }
    order.status = OrderStatus::Cancelled;
    order.updated_at = now.to_string();
    save(tx, order, Some(before))
}

/// Brings the status of every order the job touched in line with its shipments (DESIGN §8),
/// once, after every other change of the job: the writer calls it before each commit.
pub fn settle_touched(tx: &Tx) -> Result<()> {
    for touched in tx.take_touched_orders() {
        let Some(before) = store::orders::get(tx, &touched.org_id, &touched.order_id)? else {
            continue;
        };
        let tally = store::orders::tally(tx, &touched.org_id, &touched.order_id)?;
        let next = order::status_for(before.status, tally);
        if next != before.status {
            let order = OrderRecord {
                status: next,
                updated_at: touched.at,
                ..before.clone()
            };
            save(tx, &order, Some(&before))?;
        }
    }
    Ok(())
}
