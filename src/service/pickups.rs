//! Pickups: a carrier's driver booked to collect parcels. A pickup is written
//! `requesting` before the carrier is asked, with its id as the carrier's reference, so that the
//! carrier is asked once whatever fails: a refusal removes it (nothing was booked), a
//! confirmation makes it `booked`, and an answer that never came leaves it `unknown` for a person
//! to look up and cancel.

use crate::{
    carriers::{self, pickup::PickupRequest},
    error::{Error, Result},
    model::{
        carrier::CarrierRecord,
        country,
        event::EventKind,
        ids,
        pickup::{Pickup, PickupIn, PickupPage, PickupStatus},
        sender_address::SenderAddress,
        shipment::ShipmentRecord,
        status::ShipmentStatus,
        time, timezone,
        validate::Violations,
    },
    service::{
        Actor, Ctx, Input, PageParams, emit::Emitter, input::idempotency, operations as ops,
        page_query,
    },
    store::{self, Reader, Tx},
};

/// How long after the carriers' timeout a pickup still `requesting` is taken to have stopped
/// (its process died), so that it can be cancelled.
const STALE_AFTER_TIMEOUT_SECONDS: i64 = 120;

/// What a pickup needs from the database: the carrier (secrets in clear, for its adapter), the
/// address and the shipments.
struct Parts {
    carrier: CarrierRecord,
    address: SenderAddress,
    shipments: Vec<ShipmentRecord>,
}

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<PickupIn>,
) -> Result<Pickup> {
    let grant = actor.authorize(org_id, &ops::CREATE_PICKUP)?;
    let fields = input.get()?;
    let parts = ctx.db.point(|db| parts(ctx, db, org_id, &fields))?;
    let adapter = adapter_for(&parts.carrier)?;
    let country = parts.address.fields.country_code.to_ascii_uppercase();
    if !adapter.picks_up(&country) {
        return Err(Error::InvalidState(format!(
            "{} books no pickups through its API from {country}; book the pickup with {} directly",
            parts.carrier.fields.named(),
            parts.carrier.fields.name
        )));
    }
    let now = ctx.now();
    let pickup = Pickup {
        id: ids::new(ids::PICKUP),
        org_id: org_id.to_string(),
        carrier_id: fields.carrier_id.clone(),
        status: PickupStatus::Requesting,
        date: fields.date.clone(),
        ready_from: fields.ready_from.clone(),
        ready_until: fields.ready_until.clone(),
        sender_address_id: fields.sender_address_id.clone(),
        shipment_ids: fields.shipment_ids.clone(),
        note: fields.note.clone().filter(|n| !n.trim().is_empty()),
        confirmation_number: None,
        error: None,
        created_at: now.clone(),
        updated_at: now,
    };
    let claim = pickup.clone();
    ctx.db
        .write(move |tx| store::pickups::insert(tx, &claim))
        .await?;

    let request = PickupRequest {
        reference: &pickup.id,
        date: &pickup.date,
        ready_from: &pickup.ready_from,
        ready_until: &pickup.ready_until,
        address: &parts.address,
        shipments: &parts.shipments,
        note: pickup.note.as_deref(),
    };
    let answer = adapter
        .book_pickup(&ctx.carriers, &parts.carrier, &request)
        .await;
    let booking = match answer {
        Ok(booking) => booking,
        Err(err) => {
            if err.reached_the_carrier() {
                idempotency::keep();
            }
            give_up(ctx, &pickup, &err).await;
            return Err(err);
        }
    };
    if adapter.calls_out() {
        idempotency::keep();
    }
    let mut booked = pickup.clone();
    booked.status = PickupStatus::Booked;
    booked.confirmation_number = Some(booking.confirmation_number);
    booked.updated_at = ctx.now();
    let done = booked.clone();
    let saved = ctx
        .commit(grant.on(&pickup.id), move |tx| {
            if !store::pickups::settle(tx, &done, PickupStatus::Requesting)? {
                return Err(Error::InvalidState(format!(
                    "pickup {} was given up before the carrier answered; its confirmation is {}",
                    done.id,
                    done.confirmation_number.as_deref().unwrap_or_default()
                )));
            }
            emit(tx, &done, EventKind::PickupCreated)?;
            Ok(done)
        })
        .await;
    if let Err(err) = &saved {
        let at_carrier = Error::CarrierUncertain(format!(
            "{} confirmed the pickup as {}, but it could not be saved: {err}",
            parts.carrier.fields.named(),
            booked.confirmation_number.as_deref().unwrap_or_default()
        ));
        give_up(ctx, &pickup, &at_carrier).await;
    }
    saved
}

/// Ends a pickup the carrier did not confirm: removed when the carrier booked nothing,
/// `unknown` when it may have. Errors writing it are logged: the caller's error is the answer.
async fn give_up(ctx: &Ctx, pickup: &Pickup, err: &Error) {
    let unknown = err.leaves_the_outcome_unknown();
    let mut ended = pickup.clone();
    ended.status = PickupStatus::Unknown;
    ended.error = Some(err.to_string());
    ended.updated_at = ctx.now();
    let written = ctx
        .db
        .write(move |tx| {
            if unknown {
                store::pickups::settle(tx, &ended, PickupStatus::Requesting).map(|_| ())
            } else {
                store::pickups::delete(tx, &ended.org_id, &ended.id)
            }
        })
        .await;
    if let Err(err) = written {
        tracing::error!(pickup = %pickup.id, error = %err, "could not end a pickup request");
    }
}

pub async fn list(ctx: &Ctx, actor: &Actor, org_id: &str, page: PageParams) -> Result<PickupPage> {
    actor.authorize(org_id, &ops::LIST_PICKUPS)?;
    let page = page_query(&page)?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |db| store::pickups::list(db, &org_id, page))
        .await
        .map(Into::into)
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<Pickup> {
    actor.authorize(org_id, &ops::GET_PICKUP)?;
    ctx.db
        .point(|db| store::pickups::get(db, org_id, id)?.ok_or(Error::NotFound))
}

/// Cancels a pickup: with the carrier when it booked it; one whose outcome is unknown (or whose
/// request stopped) is only marked, and the answer says to check with the carrier.
pub async fn cancel(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<String> {
    let grant = actor.authorize(org_id, &ops::CANCEL_PICKUP)?.on(id);
    let (pickup, carrier, contact) = ctx.db.point(|db| {
        let pickup = store::pickups::get(db, org_id, id)?.ok_or(Error::NotFound)?;
        let carrier = store::carriers::get(db, org_id, &pickup.carrier_id)?
            .map(|view| crate::service::carriers::reveal(&ctx.vault, db, view.carrier))
            .transpose()?;
        let contact = store::sender_addresses::get(db, org_id, &pickup.sender_address_id)?
            .map(|a| a.fields.att_contact)
            .unwrap_or_default();
        Ok((pickup, carrier, contact))
    })?;
    let message = match pickup.status {
        PickupStatus::Cancelled => {
            return Err(Error::InvalidState(
                "the pickup is cancelled already".into(),
            ));
        }
        PickupStatus::Requesting if !stale(ctx, &pickup) => {
            return Err(Error::InvalidState(format!(
                "the pickup is being booked with the carrier (since {}); wait for it to finish",
                pickup.created_at
            )));
        }
        PickupStatus::Booked => {
            let number = pickup.confirmation_number.clone().unwrap_or_default();
            match &carrier {
                Some(carrier) => {
                    let adapter = adapter_for(carrier)?;
                    if adapter.cancels_pickups() {
                        adapter
                            .cancel_pickup(&ctx.carriers, carrier, &number, &contact)
                            .await?;
                        "pickup cancelled".to_string()
                    } else {
                        format!(
                            "pickup cancelled here; {} takes no cancellations through its API, \
                             so call it to cancel booking {number}",
                            carrier.fields.name
                        )
                    }
                }
                None => format!(
                    "pickup cancelled here; its carrier no longer exists in Shipbase, so call the \
                     carrier to cancel confirmation {number}"
                ),
            }
        }
        PickupStatus::Requesting | PickupStatus::Unknown => format!(
            "pickup cancelled here; whether the carrier booked it is unknown, so check with the \
             carrier (the pickup's reference was {})",
            pickup.id
        ),
    };
    let mut cancelled = pickup.clone();
    cancelled.status = PickupStatus::Cancelled;
    cancelled.updated_at = ctx.now();
    ctx.write(grant, move |tx| {
        if !store::pickups::settle(tx, &cancelled, pickup.status)? {
            return Err(Error::InvalidState(
                "the pickup changed meanwhile; look at it again".into(),
            ));
        }
        emit(tx, &cancelled, EventKind::PickupCancelled)
    })
    .await?;
    Ok(message)
}

fn emit(tx: &Tx, pickup: &Pickup, kind: EventKind) -> Result<()> {
    let at = pickup.updated_at.clone();
    Emitter::new(tx, &pickup.org_id, &at, || Ok(pickup.clone())).emit(kind)
}

/// Whether a pickup still `requesting` has outlived any carrier call.
fn stale(ctx: &Ctx, pickup: &Pickup) -> bool {
    let seconds = i64::try_from(ctx.config.carriers.timeout_seconds).unwrap_or(i64::MAX / 2)
        + STALE_AFTER_TIMEOUT_SECONDS;
    time::parse(&pickup.created_at)
        .is_none_or(|at| at + ::time::Duration::seconds(seconds) < ctx.clock.now())
}

fn adapter_for(carrier: &CarrierRecord) -> Result<Box<dyn carriers::CarrierAdapter>> {
    carriers::find(&carrier.fields.carrier_slug).ok_or_else(|| {
        Error::InvalidState(format!(
            "carrier type {} is not available",
            carrier.fields.carrier_slug
        ))
    })
}

/// Reads and checks what the pickup names: every field error at once.
fn parts(ctx: &Ctx, db: &Reader, org_id: &str, fields: &PickupIn) -> Result<Parts> {
    let mut errors = Violations::new();
    let carrier = store::carriers::get(db, org_id, &fields.carrier_id)?.map(|view| view.carrier);
    if carrier.is_none() {
        errors.add(
            "carrierId",
            format!("no carrier {} in this organization", fields.carrier_id),
        );
    }
    let address = store::sender_addresses::get(db, org_id, &fields.sender_address_id)?;
    let today = match &address {
        None => {
            errors.add(
                "senderAddressId",
                format!(
                    "no sender address {} in this organization",
                    fields.sender_address_id
                ),
            );
            None
        }
        Some(address) if !country::is_alpha2(&address.fields.country_code) => {
            errors.add(
                "senderAddressId",
                "the sender address's countryCode must be an ISO 3166-1 alpha-2 code to book a pickup",
            );
            None
        }
        Some(address) => Some(
            timezone::local(
                ctx.clock.now(),
                timezone::zone_of(&address.fields.country_code, &address.fields.zipcode),
            )
            .date(),
        ),
    };
    fields.validate(today, &mut errors);
    let mut shipments = Vec::with_capacity(fields.shipment_ids.len());
    for (i, id) in fields.shipment_ids.iter().enumerate() {
        let field = format!("shipmentIds[{i}]");
        let Some(shipment) = store::shipments::get(db, org_id, id)? else {
            errors.add(field, format!("no shipment {id} in this organization"));
            continue;
        };
        if shipment.body.carrier_settings.carrier_id != fields.carrier_id {
            errors.add(
                field,
                format!("shipment {id} is not booked with this carrier"),
            );
        } else if !matches!(
            shipment.status,
            ShipmentStatus::Processing | ShipmentStatus::PartlyDispatched
        ) {
            errors.add(
                field,
                format!(
                    "shipment {id} is {}; only booked shipments that have not left are picked up",
                    shipment.status
                ),
            );
        }
        shipments.push(shipment);
    }
    errors.finish()?;
    let (Some(carrier), Some(address)) = (carrier, address) else {
        return Err(Error::internal(
            "a pickup's parts went missing after their check",
        ));
    };
    Ok(Parts {
        carrier: crate::service::carriers::reveal(&ctx.vault, db, carrier)?,
        address,
        shipments,
    })
}
