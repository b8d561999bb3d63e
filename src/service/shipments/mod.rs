//! Shipments: create (DESIGN §7 defaults and rules), get and list with filters. The operations
//! on an existing shipment live in the aspect modules below.

use std::collections::HashSet;

use crate::{
    error::{Error, Result},
    model::{
        address::SenderAddress,
        document::Document,
        ids,
        rule::ShippingRule,
        scope::{Resource, Scope},
        shipment::{self, Party, Shipment, ShipmentBody},
        time,
        validate::Violations,
    },
    service::{Actor, Ctx, Input, carriers, orders, page_query, sender_addresses},
    store::{self, Paged, Tx, shipments::Filter},
};

mod booking;
mod returns;
mod split;
mod status;
mod tracking;

pub use booking::{book, document};
pub use returns::create_return;
pub use split::{BatchItem, BatchSplit, SettingsOverride, Split, SplitOutcome, batch_split, split};
pub use status::{apply_shipping_rule, delete, set_status};
pub use tracking::{NewTrackingEvent, add_tracking_event};

const READ: Scope = Scope::read(Resource::Shipments);
const WRITE: Scope = Scope::write(Resource::Shipments);

/// A shipment to create (SPEC row 12). Parcels and order lines without ids get new ones.
pub struct NewShipment {
    pub reference: String,
    pub sender_address_id: String,
    pub kind: String,
    pub status: Option<String>,
    pub term_of_trade: Option<String>,
    pub order_id: Option<String>,
    pub body: ShipmentBody,
}

/// A shipment with the rule it names (for the `shippingRule` summary) and its documents.
pub struct ShipmentView {
    pub shipment: Shipment,
    pub rule: Option<ShippingRule>,
    pub documents: Vec<Document>,
}

/// Reads a shipment with its rule and documents.
pub(crate) fn view(conn: &rusqlite::Connection, org_id: &str, id: &str) -> Result<ShipmentView> {
    let shipment = store::shipments::get(conn, org_id, id)?.ok_or(Error::NotFound)?;
    let rule = match &shipment.shipping_rule_id {
        Some(rule_id) => store::shipping_rules::get_rule(conn, org_id, rule_id)?,
        None => None,
    };
    let documents = store::documents::of_shipment(conn, org_id, id)?;
    Ok(ShipmentView {
        shipment,
        rule,
        documents,
    })
}

/// How `save` writes a shipment.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Write {
    Insert,
    Update,
    Delete,
}

/// Every shipment write passes through here, inside the caller's transaction: the order the
/// shipment belongs to follows it (DESIGN §8), and this is where events hook in.
pub(crate) fn save(tx: &Tx, shipment: &Shipment, write: Write) -> Result<()> {
    match write {
        Write::Insert => store::shipments::insert(tx, shipment)?,
        Write::Update => store::shipments::update(tx, shipment)?,
        Write::Delete => store::shipments::delete(tx, &shipment.org_id, &shipment.id)?,
    }
    if let Some(order_id) = &shipment.order_id {
        orders::follow_shipments(tx, &shipment.org_id, order_id, &shipment.updated_at)?;
    }
    Ok(())
}

/// A stored shipment of the organization, or 404.
pub(crate) fn require(conn: &rusqlite::Connection, org_id: &str, id: &str) -> Result<Shipment> {
    store::shipments::get(conn, org_id, id)?.ok_or(Error::NotFound)
}

/// What the list endpoint accepts (DESIGN §6).
#[derive(Default)]
pub struct ListQuery {
    pub page: Option<i64>,
    pub limit: Option<i64>,
    pub status: Option<String>,
    pub reference: Option<String>,
    pub order_id: Option<String>,
    pub created_from: Option<String>,
    pub created_to: Option<String>,
}

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<NewShipment>,
) -> Result<ShipmentView> {
    actor.authorize(org_id, WRITE)?;
    let new = input.get()?;
    validate(&new)?;
    let (org_id, now) = (org_id.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            let shipment = create_in(tx, &org_id, new, now)?;
            Ok(ShipmentView {
                shipment,
                rule: None,
                documents: Vec::new(),
            })
        })
        .await
}

/// Creates a validated shipment inside the caller's transaction, checking its references.
pub(crate) fn create_in(tx: &Tx, org_id: &str, new: NewShipment, now: String) -> Result<Shipment> {
    let address = sender_addresses::require(tx, org_id, &new.sender_address_id, "senderAddressId")?;
    let carrier_id = &new.body.carrier_settings.carrier_id;
    carriers::require(tx, org_id, carrier_id, "carrierSettings.carrierId")?;
    if let Some(order_id) = &new.order_id {
        orders::require_open(tx, org_id, order_id, "orderId")?;
    }
    let shipment = build(new, org_id, &address, now);
    save(tx, &shipment, Write::Insert)?;
    Ok(shipment)
}

pub(crate) fn validate(new: &NewShipment) -> Result<()> {
    let mut errors = Violations::new();
    errors.length("reference", &new.reference, 1, 200);
    errors.length("senderAddressId", &new.sender_address_id, 1, 100);
    errors.one_of("type", &new.kind, &shipment::TYPES);
    if let Some(status) = &new.status {
        errors.one_of("status", status, &shipment::STATUSES);
    }
    if let Some(term) = &new.term_of_trade {
        errors.one_of("termOfTrade", term, &shipment::TERMS_OF_TRADE);
    }
    new.body.validate(&mut errors);
    let mut seen = HashSet::new();
    for parcel in &new.body.parcels {
        let line_ids = parcel.order_lines.iter().map(|l| &l.id);
        for id in std::iter::once(&parcel.id)
            .chain(line_ids)
            .filter(|id| !id.is_empty())
        {
            if !seen.insert(id) {
                errors.add("parcels", format!("the id {id} is used twice"));
            }
        }
    }
    errors.finish()
}

/// Applies the defaults of DESIGN §7: ids, sender party, status, term of trade.
fn build(new: NewShipment, org_id: &str, address: &SenderAddress, now: String) -> Shipment {
    let mut body = new.body;
    if !body.parties.iter().any(|p| p.kind == "sender") {
        body.parties.insert(0, sender_party(address));
    }
    for parcel in &mut body.parcels {
        if parcel.id.is_empty() {
            parcel.id = ids::new(ids::PARCEL);
        }
        for line in &mut parcel.order_lines {
            if line.id.is_empty() {
                line.id = ids::new(ids::ORDER_LINE);
            }
        }
    }
    body.tracking = None;
    Shipment {
        id: ids::new(ids::SHIPMENT),
        org_id: org_id.to_string(),
        reference: new.reference,
        sender_address_id: new.sender_address_id,
        kind: new.kind,
        status: new.status.unwrap_or_else(|| "pending".into()),
        term_of_trade: new
            .term_of_trade
            .unwrap_or_else(|| shipment::DEFAULT_TERM_OF_TRADE.into()),
        order_id: new.order_id,
        shipping_rule_id: None,
        return_of: None,
        split_from: None,
        splits_made: 0,
        body,
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

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<ShipmentView> {
    actor.authorize(org_id, READ)?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    ctx.db.read(move |c| view(c, &org_id, &id)).await
}

pub async fn list(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    query: ListQuery,
) -> Result<Paged<(Shipment, SenderAddress)>> {
    actor.authorize(org_id, READ)?;
    let page = page_query(query.page, query.limit)?;
    let mut errors = Violations::new();
    if let Some(status) = &query.status {
        errors.one_of("status", status, &shipment::STATUSES);
    }
    let mut instant = |field: &str, value: Option<String>| {
        value.and_then(|text| match time::parse(&text) {
            Some(t) => Some(time::format(t)),
            None => {
                errors.add(
                    field,
                    "must be an RFC 3339 timestamp such as 2026-11-22T10:15:30Z",
                );
                None
            }
        })
    };
    let created_from = instant("createdFrom", query.created_from);
    let created_to = instant("createdTo", query.created_to);
    errors.finish()?;
    let filter = Filter {
        status: query.status,
        reference: query.reference,
        order_id: query.order_id,
        created_from,
        created_to,
    };
    let org_id = org_id.to_string();
    ctx.db
        .read(move |c| store::shipments::list(c, &org_id, &filter, page))
        .await
}
