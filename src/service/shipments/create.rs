//! Creating a shipment with its defaults (ids, sender party, status, term of trade): the body checked, the shipment built and its
//! representation written on the request's thread, then checked again and stored by the writer.

use std::sync::Arc;

use poem_openapi::types::ToJSON;

use crate::{
    error::{Error, Result},
    model::{
        ids,
        sender_address::SenderAddress,
        shipment::{self, Party, Shipment, ShipmentBody, ShipmentIn, ShipmentRecord, wire::Repr},
        status::ShipmentStatus,
        validate::Violations,
    },
    service::{
        Actor, Ctx, Input, access::auth::Pending, carriers, input::whole, operations as ops,
        sender_addresses,
    },
    store::{self, Reader, Tx},
};

use super::{Change, Senders, parties, save};

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<ShipmentIn>,
) -> Result<Shipment> {
    let caller = Pending::confirmed(actor.clone());
    let (shipment, _) = create_stored(ctx, &caller, org_id, input).await?;
    Ok(Shipment {
        shipment,
        documents: Vec::new(),
        shipping_rule: None,
    })
}

/// `create`'s answer, as JSON: written from the representation the write stored. A kept API
/// token's credential is confirmed in the write's transaction (`Pending`), or before any
/// refusal.
pub async fn create_json(
    ctx: &Ctx,
    caller: &Pending,
    org_id: &str,
    input: Input<ShipmentIn>,
) -> Result<Vec<u8>> {
    let (_, repr) = create_stored(ctx, caller, org_id, input).await?;
    let mut out = Vec::new();
    repr.new_answer(&mut out);
    Ok(out)
}

/// A new shipment and the representation stored with it (a new shipment has no documents and
/// no rule).
async fn create_stored(
    ctx: &Ctx,
    caller: &Pending,
    org_id: &str,
    input: Input<ShipmentIn>,
) -> Result<(ShipmentRecord, Repr)> {
    let grant = caller.authorize(ctx, org_id, &ops::CREATE_SHIPMENT)?;
    let org = org_id.to_string();
    let check = |new: &ShipmentIn, errors: &mut Violations| {
        new.check(errors);
        parties::printable(&new.parties, errors);
    };
    let new = whole::checked(ctx, input, check, move |db, new, errors| {
        references(db, &org, new, errors).map(drop)
    })
    .await
    .map_err(|refused| caller.refusal(ctx, refused))?;
    let (org_id, now, id) = (org_id.to_string(), ctx.now(), ids::new(ids::SHIPMENT));
    // Built and written out here, from the sender address as this process last read it
    // (`Senders`), so that the writer's one thread only checks and stores; the write takes the
    // party again if the address changed since, and without the address it says what is wrong.
    let address = match ctx.senders.get(&org_id, &new.sender_address_id) {
        Some(kept) => Some(kept),
        None => {
            let read = ctx
                .db
                .point(|db| store::sender_addresses::get(db, &org_id, &new.sender_address_id))?;
            if let Some(address) = &read {
                ctx.senders.keep(address);
            }
            read
        }
    };
    let answer = |shipment: &ShipmentRecord| {
        Shipment {
            shipment: shipment.clone(),
            documents: Vec::new(),
            shipping_rule: None,
        }
        .to_json()
        .unwrap_or_default()
    };
    let grant = grant.on(&id);
    // The credential, when kept, is confirmed first thing in the write's transaction.
    let (confirm, kept) = (caller.to_confirm(), ctx.clone());
    let confirmed = move |tx: &Tx, ctx: &Ctx, org_id: &str| match &confirm {
        Some(caller) => caller.confirm_for(ctx, tx, org_id, &ops::CREATE_SHIPMENT),
        None => Ok(()),
    };
    let Some(address) = address else {
        return ctx
            .commit_as(
                grant,
                move |tx| {
                    confirmed(tx, &kept, &org_id)?;
                    create_in(tx, &org_id, id, new, now)
                },
                move |(shipment, _): &(ShipmentRecord, Repr)| answer(shipment),
            )
            .await;
    };
    // The writer may run the create again, so it only reads what was prepared, and hands out
    // the shipment only when it had to build it again; the writer lets go of its share
    // before the answer comes.
    let prepared = Arc::new(Prepared::new(id, new, &org_id, address, now));
    let (job, told) = (prepared.clone(), prepared.clone());
    let rebuilt = ctx
        .commit_again_as(
            grant,
            move |tx| {
                confirmed(tx, &kept, &job.shipment.org_id)?;
                job.create_in(tx, &kept.senders)
            },
            move |rebuilt: &Option<(ShipmentRecord, Repr)>| match rebuilt {
                Some((shipment, _)) => answer(shipment),
                None => answer(&told.shipment),
            },
        )
        .await?;
    Ok(rebuilt.unwrap_or_else(|| match Arc::try_unwrap(prepared) {
        Ok(prepared) => (prepared.shipment, prepared.repr),
        Err(shared) => (shared.shipment.clone(), shared.repr.clone()),
    }))
}

/// A new shipment built, and its representation written, before its write.
struct Prepared {
    shipment: ShipmentRecord,
    repr: Repr,
    /// The sender address it was built from.
    address: SenderAddress,
    /// Whether its sender party is the address's (the body named none).
    sender_from_address: bool,
}

impl Prepared {
    fn new(id: String, new: ShipmentIn, org_id: &str, address: SenderAddress, now: String) -> Self {
        let sender_from_address = !new.parties.iter().any(|p| p.kind == "sender");
        let shipment = build(id, new, org_id, &address, now);
        let repr = Repr::of(&shipment);
        Prepared {
            shipment,
            repr,
            address,
            sender_from_address,
        }
    }

    /// `create_in` for the shipment as built: its references are checked again, and a sender
    /// party taken from an address changed meanwhile is taken again (and the address kept in
    /// `senders` forgotten): the shipment and its representation when built again. It changes
    /// nothing of `self`, so that the writer may run it again.
    fn create_in(&self, tx: &Tx, senders: &Senders) -> Result<Option<(ShipmentRecord, Repr)>> {
        let s = &self.shipment;
        let new_refs = References {
            sender_address_id: &s.sender_address_id,
            carrier_id: &s.body.carrier_settings.carrier_id,
            order_id: s.order_id.as_deref(),
        };
        let mut errors = Violations::new();
        let address = new_refs.check(tx, &s.org_id, &mut errors)?;
        if address.as_ref() != Some(&self.address) {
            senders.forget(&self.address.id);
        }
        errors.finish()?;
        let rebuilt = self.rebased(&address.ok_or_else(no_sender_address)?);
        let (shipment, repr) = match &rebuilt {
            Some((shipment, repr)) => (shipment, repr),
            None => (&self.shipment, &self.repr),
        };
        if let Some(order_id) = &shipment.order_id {
            open_order(tx, &shipment.org_id, order_id)?;
        }
        save(tx, shipment, Change::Created(Some(repr)), &[])?;
        Ok(rebuilt)
    }

    /// The shipment and its representation with the sender party taken again from `current`,
    /// the sender address as the write reads it, when the shipment took it from the address and
    /// the address changed since.
    fn rebased(&self, current: &SenderAddress) -> Option<(ShipmentRecord, Repr)> {
        if !self.sender_from_address || *current == self.address {
            return None;
        }
        let mut shipment = self.shipment.clone();
        shipment.body.parties[0] = sender_party(current);
        let repr = Repr::of(&shipment);
        Some((shipment, repr))
    }
}

fn no_sender_address() -> Error {
    Error::invalid(
        "senderAddressId",
        "must name a sender address of the organization",
    )
}

/// Creates a validated shipment `id` (its shape and printable parties checked by the caller)
/// inside the caller's transaction, checking its references.
pub(crate) fn create_in(
    tx: &Tx,
    org_id: &str,
    id: String,
    new: ShipmentIn,
    now: String,
) -> Result<(ShipmentRecord, Repr)> {
    let mut errors = Violations::new();
    let address = references(tx, org_id, &new, &mut errors)?;
    errors.finish()?;
    let address = address.ok_or_else(no_sender_address)?;
    if let Some(order_id) = &new.order_id {
        open_order(tx, org_id, order_id)?;
    }
    let shipment = build(id, new, org_id, &address, now);
    let repr = Repr::of(&shipment);
    save(tx, &shipment, Change::Created(Some(&repr)), &[])?;
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
    References {
        sender_address_id: &new.sender_address_id,
        carrier_id: &new.carrier_settings.carrier_id,
        order_id: new.order_id.as_deref(),
    }
    .check(db, org_id, errors)
}

/// The ids a shipment names.
struct References<'a> {
    sender_address_id: &'a str,
    carrier_id: &'a str,
    order_id: Option<&'a str>,
}

impl References<'_> {
    /// `references`.
    fn check(
        &self,
        db: &Reader,
        org_id: &str,
        errors: &mut Violations,
    ) -> Result<Option<SenderAddress>> {
        let address = sender_addresses::found(
            db,
            org_id,
            self.sender_address_id,
            "senderAddressId",
            errors,
        )?;
        carriers::found(
            db,
            org_id,
            self.carrier_id,
            "carrierSettings.carrierId",
            errors,
        )?;
        match self.order_id {
            None => {}
            Some("") => errors.add("orderId", "must not be empty (null for none)"),
            Some(order) if !store::orders::exists(db, org_id, order)? => {
                errors.add("orderId", format!("no order {order} in this organization"));
            }
            Some(_) => {}
        }
        Ok(address)
    }
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
    save(tx, &shipment, Change::Created(None), &[]).map(drop)
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

/// The defaults for parts: a sender party from the sender address when there is
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

/// Applies the defaults: ids, sender party, status, term of trade.
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

/// The sender party a sender address fills in: its name, address, contact, e-mail and phone.
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

#[cfg(test)]
mod tests {
    use proptest::{
        strategy::{Strategy, ValueTree},
        test_runner::TestRunner,
    };
    use serde_json::json;

    use super::*;

    fn address() -> SenderAddress {
        let mut runner = TestRunner::deterministic();
        crate::model::arbitrary::address()
            .new_tree(&mut runner)
            .expect("generates")
            .current()
    }

    fn body(parties: serde_json::Value) -> ShipmentIn {
        serde_json::from_value(json!({
            "reference": "R1",
            "senderAddressId": "adr_1",
            "type": "outbound",
            "parties": parties,
            "carrierSettings": {"carrierId": "car_1", "productId": "standard"},
            "parcels": [{"weight": 1.0}]
        }))
        .expect("a shipment body")
    }

    fn receiver() -> serde_json::Value {
        json!({"type": "receiver", "name": "Jane", "address1": "Main Street 1",
               "postalCode": "8000", "city": "Aarhus", "countryCode": "DK"})
    }

    #[test]
    fn a_sender_party_taken_from_a_changed_address_is_taken_again() {
        let before = address();
        let mut after = before.clone();
        after.fields.name = "Renamed".into();
        after.updated_at = "later".into();
        let prepared = Prepared::new(
            "shp_1".into(),
            body(json!([receiver()])),
            "org_1",
            before.clone(),
            "now".into(),
        );
        assert_eq!(prepared.shipment.body.parties[0], sender_party(&before));
        assert!(prepared.rebased(&before).is_none());
        let (shipment, repr) = prepared.rebased(&after).expect("taken again");
        assert_eq!(shipment.body.parties[0].name, "Renamed");
        assert_eq!(shipment.body.parties[1].name, "Jane");
        assert_eq!(repr.text, shipment::wire::repr(&shipment));
        // What was prepared is left as it was, for the writer to run the create again.
        assert_eq!(prepared.shipment.body.parties[0], sender_party(&before));
    }

    #[test]
    fn a_sender_party_of_the_body_stays_whatever_the_address() {
        let before = address();
        let mut after = before.clone();
        after.fields.name = "Renamed".into();
        let sender = json!({"type": "sender", "name": "Own", "address1": "Side Street 2",
                            "postalCode": "1000", "city": "Copenhagen", "countryCode": "DK"});
        let prepared = Prepared::new(
            "shp_1".into(),
            body(json!([sender, receiver()])),
            "org_1",
            before,
            "now".into(),
        );
        assert!(prepared.rebased(&after).is_none());
        assert_eq!(prepared.shipment.body.parties[0].name, "Own");
    }
}
