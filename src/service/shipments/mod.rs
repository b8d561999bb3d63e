//! Shipments: create (DESIGN §7 defaults and rules), get and list with filters, and the one path
//! every shipment write takes (`save`). The operations on an existing shipment live in the aspect
//! modules below.

use poem_openapi::types::ToJSON;

use crate::{
    error::{Error, Result},
    model::{
        document::Document,
        event::EventKind,
        ids,
        sender_address::SenderAddress,
        shipment::{
            self, Party, Shipment, ShipmentBody, ShipmentIn, ShipmentListItem, ShipmentPage,
            ShipmentRecord,
        },
        status::ShipmentStatus,
        validate::Violations,
    },
    service::{
        Actor, Ctx, Input, PageParams, billing, carriers, emit::Emitter, enum_param, input::whole,
        instant_param, operations as ops, sender_addresses,
    },
    store::{self, Reader, Tx, shipments::Filter},
};

mod booking;
pub mod carrier_tracking;
mod confirmation;
mod edit;
mod paperwork;
mod parties;
pub mod portal;
pub mod rates;
mod returns;
mod split;
mod status;
mod tracking;
mod wire;

pub use booking::{Download, book, document, document_by_id, preview};
pub use confirmation::confirmation;
pub use edit::update;
pub(crate) use parties::printable;
pub use returns::create_return;
pub use split::{batch_split, split};
pub(crate) use status::void_booked;
pub use status::{apply_shipping_rule, delete, set_status};
pub use tracking::add_tracking_event;
pub use wire::{get_json, list_json};

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
    Created,
    /// The shipment as it was before.
    Updated(&'a ShipmentRecord),
    Deleted,
}

/// Every shipment write passes through here, inside the caller's unit of work: the shipment
/// and the documents it gained are written, a new shipment is counted for the plan, the order
/// the shipment belongs to is marked to be settled once before commit (DESIGN §8), the
/// events of DESIGN §9 are emitted with the shipment as it now is, and the receiver's e-mail
/// about it is queued. What it stored as the shipment's representation (nothing for
/// a deletion).
pub(crate) fn save(
    tx: &Tx,
    shipment: &ShipmentRecord,
    change: Change,
    new_documents: &[Document],
) -> Result<String> {
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
    let repr = match change {
        Change::Created => {
            billing::count_shipment(tx, &shipment.org_id, &shipment.created_at)?;
            store::shipments::insert(tx, shipment)?
        }
        Change::Updated(_) => store::shipments::update(tx, shipment)?,
        Change::Deleted => {
            store::shipments::delete(tx, &shipment.org_id, &shipment.id)?;
            String::new()
        }
    };
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
            Change::Created => Ok(Shipment {
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
        Change::Created => {
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
    Ok(repr)
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

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<ShipmentIn>,
) -> Result<Shipment> {
    let (shipment, _) = create_stored(ctx, actor, org_id, input).await?;
    Ok(Shipment {
        shipment,
        documents: Vec::new(),
        shipping_rule: None,
    })
}

/// `create`'s answer, as JSON: written from the representation the write stored.
pub async fn create_json(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<ShipmentIn>,
) -> Result<Vec<u8>> {
    let (_, repr) = create_stored(ctx, actor, org_id, input).await?;
    let mut out = Vec::with_capacity(repr.len() + 64);
    shipment::wire::full(&repr, None, &[], None, &mut out)
        .map_err(|e| crate::model::wire::broken("shipment", e))?;
    Ok(out)
}

/// A new shipment and the representation stored with it (a new shipment has no documents and
/// no rule).
async fn create_stored(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<ShipmentIn>,
) -> Result<(ShipmentRecord, String)> {
    let grant = actor.authorize(org_id, &ops::CREATE_SHIPMENT)?;
    let org = org_id.to_string();
    let check = |new: &ShipmentIn, errors: &mut Violations| {
        new.check(errors);
        parties::printable(&new.parties, errors);
    };
    let new = whole::checked(ctx, input, check, move |db, new, errors| {
        references(db, &org, new, errors).map(drop)
    })
    .await?;
    let (org_id, now, id) = (org_id.to_string(), ctx.now(), ids::new(ids::SHIPMENT));
    ctx.commit_as(
        grant.on(&id),
        move |tx| create_in(tx, &org_id, id, new, now),
        |(shipment, _): &(ShipmentRecord, String)| {
            Shipment {
                shipment: shipment.clone(),
                documents: Vec::new(),
                shipping_rule: None,
            }
            .to_json()
            .unwrap_or_default()
        },
    )
    .await
}

/// Creates a validated shipment `id` (its shape and printable parties checked by the caller)
/// inside the caller's transaction, checking its references.
pub(crate) fn create_in(
    tx: &Tx,
    org_id: &str,
    id: String,
    new: ShipmentIn,
    now: String,
) -> Result<(ShipmentRecord, String)> {
    let mut errors = Violations::new();
    let address = references(tx, org_id, &new, &mut errors)?;
    errors.finish()?;
    let address = address.ok_or_else(|| {
        Error::invalid(
            "senderAddressId",
            "must name a sender address of the organization",
        )
    })?;
    if let Some(order_id) = &new.order_id {
        open_order(tx, org_id, order_id)?;
    }
    let shipment = build(id, new, org_id, &address, now);
    let repr = save(tx, &shipment, Change::Created, &[])?;
    Ok((shipment, repr))
}

/// The ids a new shipment names that the organization does not have, each one named; the
/// sender address when it is there (the shipment is built from it).
pub(super) fn references(
    db: &Reader,
    org_id: &str,
    new: &ShipmentIn,
    errors: &mut Violations,
) -> Result<Option<SenderAddress>> {
    let address = sender_addresses::found(
        db,
        org_id,
        &new.sender_address_id,
        "senderAddressId",
        errors,
    )?;
    let carrier = &new.carrier_settings.carrier_id;
    carriers::found(db, org_id, carrier, "carrierSettings.carrierId", errors)?;
    match new.order_id.as_deref() {
        None => {}
        Some("") => errors.add("orderId", "must not be empty (null for none)"),
        Some(order) if store::orders::get(db, org_id, order)?.is_none() => {
            errors.add("orderId", format!("no order {order} in this organization"));
        }
        Some(_) => {}
    }
    Ok(address)
}

/// A shipment made by `shipbase dev seed`: built with the defaults and saved like a created one
/// (counted for the plan, events for subscribers), made at `at` and in `status`.
pub(crate) fn seed_in(
    tx: &Tx,
    address: &SenderAddress,
    new: ShipmentIn,
    at: String,
    status: ShipmentStatus,
) -> Result<()> {
    let mut shipment = build(ids::new(ids::SHIPMENT), new, &address.org_id, address, at);
    shipment.status = status;
    save(tx, &shipment, Change::Created, &[]).map(drop)
}

/// An order of the organization that takes shipments (400 on `orderId` when missing, 409 when
/// cancelled).
pub(crate) fn open_order(db: &Reader, org_id: &str, order_id: &str) -> Result<()> {
    let order = store::orders::get(db, org_id, order_id)?.ok_or_else(|| {
        Error::invalid(
            "orderId",
            format!("no order {order_id} in this organization"),
        )
    })?;
    if !order.accepts_shipments() {
        return Err(Error::InvalidState("the order is cancelled".into()));
    }
    Ok(())
}

/// The defaults of DESIGN §7 for parts: a sender party from the sender address when there is
/// none, and ids for parcels and order lines that came without.
pub(crate) fn fill_defaults(new: &mut ShipmentIn, address: &SenderAddress) {
    if !new.parties.iter().any(|p| p.kind == "sender") {
        new.parties.insert(0, sender_party(address));
    }
    for parcel in &mut new.parcels {
        // Tracking numbers come from booking only.
        parcel.tracking_number = None;
        if parcel.id.is_empty() {
            parcel.id = ids::new(ids::PARCEL);
        }
        for line in &mut parcel.order_lines {
            if line.id.is_empty() {
                line.id = ids::new(ids::ORDER_LINE);
            }
        }
    }
}

/// Applies the defaults of DESIGN §7: ids, sender party, status, term of trade.
pub(crate) fn build(
    id: String,
    mut new: ShipmentIn,
    org_id: &str,
    address: &SenderAddress,
    now: String,
) -> ShipmentRecord {
    fill_defaults(&mut new, address);
    ShipmentRecord {
        id,
        org_id: org_id.to_string(),
        reference: new.reference,
        sender_address_id: new.sender_address_id,
        kind: new.kind,
        status: new.status.unwrap_or(ShipmentStatus::Pending),
        term_of_trade: new
            .term_of_trade
            .unwrap_or_else(|| shipment::DEFAULT_TERM_OF_TRADE.into()),
        order_id: new.order_id,
        shipping_rule_id: None,
        return_of: None,
        split_from: None,
        splits_made: 0,
        body: ShipmentBody {
            parties: new.parties,
            carrier_settings: new.carrier_settings,
            parcels: new.parcels,
            service_point_id: new.service_point_id,
            pickup_details: new.pickup_details,
            tracking: None,
            language: new.language,
            tracking_url: None,
        },
        created_at: now.clone(),
        updated_at: now,
    }
}

/// The sender party as DESIGN §16 fills it from a sender address.
pub fn sender_party(address: &SenderAddress) -> Party {
    let a = &address.fields;
    Party {
        kind: "sender".into(),
        name: a.name.clone(),
        address1: a.address1.clone(),
        postal_code: a.zipcode.clone(),
        city: a.city.clone(),
        country_code: a.country_code.clone(),
        attributes: Vec::new(),
        attention: Some(a.att_contact.clone()),
        address2: a.address2.clone(),
        email: Some(a.email.clone()),
        phone: Some(a.phone.clone()),
    }
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
