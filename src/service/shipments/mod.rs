//! Shipments: create (DESIGN §7 defaults and rules), get and list with filters, and the one path
//! every shipment write takes (`save`). The operations on an existing shipment live in the aspect
//! modules below.

use crate::{
    error::{Error, Result},
    model::{
        document::Document,
        event::EventKind,
        shipment::{Shipment, ShipmentListItem, ShipmentPage, ShipmentRecord, wire::Repr},
        status::ShipmentStatus,
        validate::Violations,
    },
    service::{
        Actor, Ctx, PageParams, billing, emit::Emitter, enum_param, instant_param,
        operations as ops,
    },
    store::{self, Reader, Tx, shipments::Filter},
};

mod booking;
pub mod carrier_tracking;
mod confirmation;
mod create;
mod edit;
mod paperwork;
mod parties;
pub mod portal;
pub mod rates;
mod returns;
mod senders;
mod split;
mod status;
mod tracking;
mod wire;

pub use booking::{Download, book, document, document_by_id, preview};
pub use confirmation::confirmation;
use create::references;
pub(crate) use create::{build, create_in, fill_defaults, open_order, seed_in};
pub use create::{create, create_json, sender_party};
pub use edit::update;
pub(crate) use parties::printable;
pub use returns::create_return;
pub use senders::Senders;
pub use split::{batch_split, split};
pub(crate) use status::void_booked;
pub use status::{apply_shipping_rule, delete, set_status};
pub use tracking::add_tracking_event;
pub use wire::{get_json, lines, list_json};

/// A shipment with its documents and the summary of its rule, as every answer shows it.
pub(crate) fn view_of(db: &Reader, shipment: ShipmentRecord) -> Result<Shipment> {
    let shipping_rule =
        store::shipping_rules::summary(db, &shipment.org_id, shipment.shipping_rule_id.as_deref())?;
    let documents = store::documents::of_shipment(db, &shipment.org_id, &shipment.id)?;
    Ok(Shipment {
        shipment,
        documents,
        shipping_rule,
    })
}

/// Reads a shipment of the organization with its documents and rule, or 404.
pub(crate) fn view(db: &Reader, org_id: &str, id: &str) -> Result<Shipment> {
    view_of(db, require(db, org_id, id)?)
}

/// What a write did to a shipment.
#[derive(Clone, Copy)]
pub(crate) enum Change<'a> {
    /// A new shipment, with its representation when the caller wrote it beforehand (off the
    /// writer's thread).
    Created(Option<&'a Repr>),
    /// The shipment as it was before.
    Updated(&'a ShipmentRecord),
    Deleted,
}

/// Every shipment write passes through here, inside the caller's unit of work: the shipment
/// and the documents it gained are written, a new shipment is counted for the plan, the order
/// the shipment belongs to is marked to be settled once before commit (DESIGN §8), the
/// events of DESIGN §9 are emitted with the shipment as it now is, and the receiver's e-mail
/// about it is queued.
pub(crate) fn save(
    tx: &Tx,
    shipment: &ShipmentRecord,
    change: Change,
    new_documents: &[Document],
) -> Result<()> {
    // A pending shipment may be held by a booking: nothing else changes it meanwhile.
    match change {
        Change::Updated(before) if before.status == ShipmentStatus::Pending => booking::guard(
            tx,
            before,
            &shipment.updated_at,
            shipment.status == ShipmentStatus::Cancelled,
        )?,
        Change::Deleted if shipment.status == ShipmentStatus::Pending => {
            booking::guard(tx, shipment, &shipment.updated_at, false)?
        }
        _ => {}
    }
    match change {
        Change::Created(repr) => {
            billing::count_shipment(tx, &shipment.org_id, &shipment.created_at)?;
            match repr {
                Some(repr) => store::shipments::insert(tx, shipment, repr)?,
                None => store::shipments::insert(tx, shipment, &Repr::of(shipment))?,
            }
        }
        Change::Updated(before) => store::shipments::update(tx, before, shipment)?,
        Change::Deleted => store::shipments::delete(tx, shipment)?,
    }
    for document in new_documents {
        store::documents::insert(tx, document)?;
    }
    if let Some(order_id) = &shipment.order_id {
        tx.touch_order(&shipment.org_id, order_id, &shipment.updated_at);
    }
    // An edit may move a shipment to another order: the one it left changes too.
    if let Change::Updated(ShipmentRecord {
        order_id: Some(left),
        ..
    }) = change
        && shipment.order_id.as_ref() != Some(left)
    {
        tx.touch_order(&shipment.org_id, left, &shipment.updated_at);
    }
    let mut events = Emitter::new(
        tx,
        &shipment.org_id,
        &shipment.updated_at,
        || match change {
            // A new shipment's documents are the ones it came with: no need to read them back.
            Change::Created(_) => Ok(Shipment {
                shipment: shipment.clone(),
                documents: new_documents.to_vec(),
                shipping_rule: store::shipping_rules::summary(
                    tx,
                    &shipment.org_id,
                    shipment.shipping_rule_id.as_deref(),
                )?,
            }),
            _ => view_of(tx, shipment.clone()),
        },
    );
    match change {
        Change::Created(_) => {
            events.emit(EventKind::ShipmentCreated)?;
            if shipment.body.tracking.is_some() {
                events.emit(EventKind::TrackingUpdated)?;
            }
        }
        Change::Updated(before) => {
            if changed_beyond_tracking(before, shipment) {
                events.emit(EventKind::ShipmentUpdated)?;
            }
            if before.status != shipment.status {
                let into = match shipment.status {
                    ShipmentStatus::Dispatched => Some(EventKind::ShipmentDispatched),
                    ShipmentStatus::Cancelled => Some(EventKind::ShipmentCancelled),
                    ShipmentStatus::Error => Some(EventKind::ShipmentError),
                    _ => None,
                };
                if let Some(kind) = into {
                    events.emit(kind)?;
                }
            }
            if before.body.tracking != shipment.body.tracking {
                events.emit(EventKind::TrackingUpdated)?;
            }
            crate::service::mail::queue_for(tx, before, shipment)?;
        }
        Change::Deleted => {}
    }
    Ok(())
}

/// Whether anything but the tracking (and the time of the change) differs.
fn changed_beyond_tracking(before: &ShipmentRecord, after: &ShipmentRecord) -> bool {
    let strip = |s: &ShipmentRecord| {
        let mut s = s.clone();
        s.body.tracking = None;
        s.updated_at = String::new();
        s
    };
    strip(before) != strip(after)
}

/// A stored shipment of the organization, or 404.
pub(crate) fn require(db: &Reader, org_id: &str, id: &str) -> Result<ShipmentRecord> {
    store::shipments::get(db, org_id, id)?.ok_or(Error::NotFound)
}

/// What the list accepts (DESIGN §6), as the client sent it.
#[derive(Default)]
pub struct ListQuery {
    pub page: PageParams,
    pub status: Option<String>,
    pub reference: Option<String>,
    pub order_id: Option<String>,
    pub created_from: Option<String>,
    pub created_to: Option<String>,
    /// Text to search for (`search::words`).
    pub search: Option<String>,
    pub carrier_id: Option<String>,
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<Shipment> {
    actor.authorize(org_id, &ops::GET_SHIPMENT)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db.point(|db| view(db, &org_id, &id))
}

pub async fn list(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    query: ListQuery,
) -> Result<ShipmentPage> {
    actor.authorize(org_id, &ops::LIST_SHIPMENTS)?;
    let (page, filter) = query.parse()?;
    let org_id = org_id.to_string();
    let paged = ctx
        .db
        .read(move |db| store::shipments::list(db, &org_id, &filter, page))
        .await?;
    Ok(paged
        .map(|(shipment, address)| ShipmentListItem::new(shipment, address))
        .into())
}

impl ListQuery {
    /// The page and the filter asked for, or every parameter that is wrong.
    fn parse(self) -> Result<(store::PageQuery, Filter)> {
        let mut errors = Violations::new();
        let page = self.page.parse(&mut errors);
        let status = enum_param(
            &mut errors,
            "status",
            self.status,
            ShipmentStatus::parse,
            ShipmentStatus::names,
        );
        let created_from = instant_param(&mut errors, "createdFrom", self.created_from);
        let created_to = instant_param(&mut errors, "createdTo", self.created_to);
        errors.finish()?;
        let filter = Filter {
            status,
            reference: self.reference,
            order_id: self.order_id,
            created_from,
            created_to,
            search: self
                .search
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty()),
            carrier_id: self.carrier_id.filter(|c| !c.is_empty()),
        };
        Ok((page, filter))
    }
}
