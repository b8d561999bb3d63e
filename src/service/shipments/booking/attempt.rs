//! Booking attempts: a booking claims its shipment in a committed write before
//! the carrier is called, and the claim holds until the attempt ends. While it holds, no other
//! booking, edit, split, rule, deletion or cancellation of the shipment goes through (409
//! `booking_in_progress`). An attempt whose carrier call may have booked without saying so stays
//! `unknown`: the shipment can then only be cancelled, or booked again on purpose
//! (`afterUnknownOutcome: book_again`), so that no parcel is booked twice by accident.

use crate::{
    error::{Error, Result},
    model::{
        booking::{AttemptStatus, BookingAttempt},
        ids,
        shipment::ShipmentRecord,
        status::ShipmentStatus,
        time,
    },
    service::{Ctx, shipments::require},
    store::{Tx, booking_attempts},
};

/// How long after the carriers' timeout an attempt still in progress is taken to have stopped.
const STALE_AFTER_TIMEOUT_SECONDS: i64 = 120;

/// Claims `shipment` (as it was read, at `seen`) for a new attempt; `book_again` gives up an
/// attempt whose outcome is unknown.
pub(super) async fn claim(
    ctx: &Ctx,
    shipment: &ShipmentRecord,
    book_again: bool,
) -> Result<BookingAttempt> {
    let now = ctx.clock.now();
    let stale = now
        + ::time::Duration::seconds(
            i64::try_from(ctx.config.carriers.timeout_seconds).unwrap_or(i64::MAX / 2)
                + STALE_AFTER_TIMEOUT_SECONDS,
        );
    let attempt = BookingAttempt {
        id: ids::new(ids::BOOKING_ATTEMPT),
        org_id: shipment.org_id.clone(),
        shipment_id: shipment.id.clone(),
        status: AttemptStatus::InProgress,
        started_at: time::format(now),
        stale_at: time::format(stale),
        finished_at: None,
        error: None,
    };
    let seen = shipment.updated_at.clone();
    ctx.db
        .write(move |tx| {
            let current = require(tx, &attempt.org_id, &attempt.shipment_id)?;
            if current.status != ShipmentStatus::Pending {
                return Err(super::not_bookable(current.status));
            }
            if current.updated_at != seen {
                return Err(Error::InvalidState(
                    "the shipment changed while it was being booked; book it again".into(),
                ));
            }
            if let Some(open) =
                booking_attempts::open_for(tx, &attempt.org_id, &attempt.shipment_id)?
            {
                let held = refusal(&open, &attempt.started_at);
                if !(book_again && matches!(held, Error::BookingOutcomeUnknown(_))) {
                    return Err(held);
                }
                booking_attempts::set_status(
                    tx,
                    &open.org_id,
                    &open.id,
                    AttemptStatus::Superseded,
                    &attempt.started_at,
                    Some(&superseded_error(&open, &attempt.id)),
                )?;
            }
            match booking_attempts::insert(tx, &attempt)? {
                Some(()) => Ok(attempt),
                None => Err(Error::BookingInProgress(
                    "the shipment is being booked by another request; wait for it to finish".into(),
                )),
            }
        })
        .await
}

/// Ends `attempt` without a booking: `failed` when the carrier booked nothing, `unknown` when it
/// may have. Errors writing it are logged: the caller's own error is the one to answer.
pub(super) async fn end(ctx: &Ctx, attempt: &BookingAttempt, err: &Error, carrier_booked: bool) {
    let status = if carrier_booked || err.leaves_the_outcome_unknown() {
        AttemptStatus::Unknown
    } else {
        AttemptStatus::Failed
    };
    let error = if carrier_booked {
        format!("the carrier booked it, but the booking could not be saved: {err}")
    } else {
        err.to_string()
    };
    let (org_id, id, now) = (attempt.org_id.clone(), attempt.id.clone(), ctx.now());
    let written = ctx
        .db
        .write(move |tx| booking_attempts::set_status(tx, &org_id, &id, status, &now, Some(&error)))
        .await;
    if let Err(err) = written {
        tracing::error!(attempt = %attempt.id, error = %err, "could not end a booking attempt");
    }
}

/// Inside the booking's final write: the attempt is still the one holding the shipment, and is
/// now `booked`.
pub(super) fn complete(tx: &Tx, attempt: &BookingAttempt, now: &str) -> Result<()> {
    if booking_attempts::complete(tx, &attempt.org_id, &attempt.id, now)? {
        return Ok(());
    }
    Err(Error::InvalidState(format!(
        "booking attempt {} was given up before the carrier answered",
        attempt.id
    )))
}

/// Refuses a change of a shipment that a booking holds. `cancelling` lets a cancellation end an
/// attempt whose outcome is unknown (the caller gives that booking up with the shipment).
pub(in crate::service::shipments) fn guard(
    tx: &Tx,
    shipment: &ShipmentRecord,
    now: &str,
    cancelling: bool,
) -> Result<()> {
    let Some(open) = booking_attempts::open_for(tx, &shipment.org_id, &shipment.id)? else {
        return Ok(());
    };
    match refusal(&open, now) {
        Error::BookingOutcomeUnknown(_) if cancelling => booking_attempts::set_status(
            tx,
            &open.org_id,
            &open.id,
            AttemptStatus::Superseded,
            now,
            Some("the shipment was cancelled with the outcome of this attempt unknown"),
        ),
        refusal => Err(refusal),
    }
}

/// Why an open attempt holds its shipment at `now`: it runs, or its outcome is unknown.
fn refusal(open: &BookingAttempt, now: &str) -> Error {
    if open.status == AttemptStatus::InProgress && now < open.stale_at.as_str() {
        return Error::BookingInProgress(format!(
            "the shipment is being booked (attempt {}, started {}); wait for it to finish",
            open.id, open.started_at
        ));
    }
    let what = match (&open.status, &open.error) {
        (AttemptStatus::Unknown, Some(error)) => error.clone(),
        _ => format!(
            "it was still running at {}, past its deadline (its process may have stopped)",
            open.stale_at
        ),
    };
    Error::BookingOutcomeUnknown(format!(
        "booking attempt {} (started {}; the carrier was given it as the request's reference) \
         ended without knowing whether the carrier booked the shipment: {what}. Look the \
         shipment up at the carrier, then book again with \
         {{\"afterUnknownOutcome\": \"book_again\"}}, or cancel the shipment",
        open.id, open.started_at
    ))
}

fn superseded_error(open: &BookingAttempt, by: &str) -> String {
    match &open.error {
        Some(error) => format!("{error}; booked again as attempt {by}"),
        None => format!("booked again as attempt {by}"),
    }
}
