//! Booking (DESIGN §7): the carrier adapter gives a tracking number, Shipbase renders one label
//! per parcel, and the shipment moves pending → processing. The booking first claims the
//! shipment (`attempt`), so that the carrier is called once; the carrier call and the PDF work
//! happen outside the write transaction, and the final write puts the booking on the shipment
//! and ends the attempt.

mod attempt;
mod download;
mod labels;

pub(in crate::service::shipments) use attempt::guard;
pub use download::{Download, by_id as document_by_id, document, preview};

use crate::{
    carriers,
    error::{Error, Result},
    model::{
        booking::AfterUnknownOutcome,
        carrier::CarrierRecord,
        document::Document,
        shipment::{BookIn, Shipment, ShipmentRecord, Tracking},
        status::{ShipmentStatus, TrackingStatus},
    },
    service::{
        Actor, Ctx, Input,
        access::grant::Grant,
        input::idempotency,
        operations as ops,
        shipments::{
            Change,
            paperwork::{self},
            require, save, view_of,
        },
        tracking_page,
    },
    store::{self, Reader},
};

/// What a booking adds to a shipment.
pub(crate) struct Booked {
    pub tracking: Tracking,
    /// One per parcel, in order.
    pub parcel_numbers: Vec<String>,
    pub documents: Vec<Document>,
    /// Whether the booking exists at a carrier outside the process (so that failing to save it
    /// leaves its outcome unknown).
    pub at_carrier: bool,
}

pub async fn book(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<BookIn>,
) -> Result<Shipment> {
    let grant = actor.authorize(org_id, &ops::BOOK_SHIPMENT)?.on(id);
    book_granted(ctx, grant, org_id, id, input.get()?).await
}

/// Books a shipment for a caller already let through (`book`, the returns portal).
pub(crate) async fn book_granted(
    ctx: &Ctx,
    grant: Grant,
    org_id: &str,
    id: &str,
    request: BookIn,
) -> Result<Shipment> {
    let asked = match request.documents {
        Some(documents) => Some(paperwork::asked(&documents)?),
        None => None,
    };
    let book_again = request.after_unknown_outcome == Some(AfterUnknownOutcome::BookAgain);
    // A rule that picks its carrier by rates picks again, before the attempt is recorded.
    super::rates::reselect(ctx, &grant, org_id, id).await?;
    let (org, sid) = (org_id.to_string(), id.to_string());
    let (shipment, carrier, extra) = ctx.db.point(|db| {
        let shipment = require(db, &org, &sid)?;
        if shipment.status != ShipmentStatus::Pending {
            return Err(not_bookable(shipment.status));
        }
        let carrier = carrier_of(ctx, db, &shipment)?;
        let documents = match asked {
            Some(kinds) => kinds,
            None => paperwork::of_rule(paperwork::rule_of(db, &shipment)?.as_ref()),
        };
        // What would fail after the carrier booked is refused before it is asked.
        super::parties::printed_parties(
            &shipment,
            "a shipment needs a sender and a receiver to be labelled",
        )?;
        paperwork::check(&documents, &shipment)?;
        let exporter = if documents.is_empty() {
            paperwork::Exporter::default()
        } else {
            let organization = store::orgs::get(db, &org)?.ok_or(Error::NotFound)?;
            let address = store::sender_addresses::get(db, &org, &shipment.sender_address_id)?;
            paperwork::exporter(
                &organization,
                address.as_ref().and_then(|a| a.fields.customs.as_ref()),
            )
        };
        Ok((
            shipment,
            carrier,
            Extra {
                documents,
                exporter,
            },
        ))
    })?;
    let attempt = attempt::claim(ctx, &shipment, book_again).await?;
    let now = ctx.now();
    let booked = match prepare(ctx, shipment, carrier, now.clone(), extra, &attempt.id).await {
        Ok(booked) => booked,
        Err(Prepared {
            err,
            carrier_booked,
        }) => {
            attempt::end(ctx, &attempt, &err, carrier_booked).await;
            return Err(err);
        }
    };
    let at_carrier = booked.at_carrier;
    let (org_id, id, claim) = (org_id.to_string(), id.to_string(), attempt.clone());
    let base_url = ctx.config.base_url();
    let view = ctx
        .commit(grant, move |tx| {
            let before = require(tx, &org_id, &id)?;
            if before.status != ShipmentStatus::Pending {
                return Err(not_bookable(before.status));
            }
            attempt::complete(tx, &claim, &now)?;
            let mut shipment = before.clone();
            let documents = apply(&mut shipment, booked, now.clone());
            let page = tracking_page::Link::give(&base_url, &mut shipment)?;
            save(tx, &shipment, Change::Updated(&before), &documents)?;
            if let Some(page) = page {
                page.record(tx, &shipment, &now)?;
            }
            let rule = paperwork::rule_of(tx, &shipment)?;
            paperwork::queue_prints(tx, rule.as_ref(), &documents, &now)?;
            view_of(tx, shipment)
        })
        .await;
    match view {
        Ok(view) => {
            ctx.printing.queued();
            Ok(view)
        }
        Err(err) => {
            attempt::end(ctx, &attempt, &err, at_carrier).await;
            Err(err)
        }
    }
}

/// What booking makes besides labels.
#[derive(Debug, Default)]
pub(crate) struct Extra {
    /// Customs and shop document types, in the order to make them.
    pub documents: Vec<&'static str>,
    /// The organization as the customs documents name it.
    pub exporter: paperwork::Exporter,
}

fn not_bookable(status: ShipmentStatus) -> Error {
    Error::InvalidState(format!(
        "only a pending shipment can be booked; this one is {status}"
    ))
}

/// The carrier named by the shipment's carrier settings, with its secrets in clear (for its
/// adapter only; never answered).
pub(crate) fn carrier_of(
    ctx: &Ctx,
    db: &Reader,
    shipment: &ShipmentRecord,
) -> Result<CarrierRecord> {
    let carrier_id = &shipment.body.carrier_settings.carrier_id;
    let carrier = store::carriers::get(db, &shipment.org_id, carrier_id)?
        .map(|view| view.carrier)
        .ok_or_else(|| {
            Error::InvalidState(format!(
                "the shipment's carrier {carrier_id} no longer exists"
            ))
        })?;
    crate::service::carriers::reveal(&ctx.vault, db, carrier)
}

/// Asks the carrier (over the network, for real carriers), then renders what is Shipbase's to
/// render (labels the carrier did not make, customs documents) off the async workers.
/// `reference` is what the carrier is told identifies the request. Once the carrier has the
/// request, the answer is one a retry with the same idempotency key gets again.
pub(crate) async fn prepare(
    ctx: &Ctx,
    shipment: ShipmentRecord,
    carrier: CarrierRecord,
    now: String,
    extra: Extra,
    reference: &str,
) -> Result<Booked, Prepared> {
    let adapter = carriers::find(&carrier.fields.carrier_slug).ok_or_else(|| {
        Prepared::before(Error::InvalidState(format!(
            "carrier type {} is not available",
            carrier.fields.carrier_slug
        )))
    })?;
    let booking = match adapter
        .book(&ctx.carriers, &shipment, &carrier, reference)
        .await
    {
        Ok(booking) => booking,
        Err(err) => {
            if err.reached_the_carrier() {
                idempotency::keep();
            }
            return Err(Prepared::before(err));
        }
    };
    let at_carrier = adapter.calls_out();
    if at_carrier {
        idempotency::keep();
    }
    let work = move || {
        let mut shipment = shipment;
        // One per parcel (and one for a shipment without parcels).
        if booking.tracking_numbers.len() != shipment.body.parcels.len().max(1) {
            return Err(Error::Internal(format!(
                "carrier {} gave {} tracking numbers for {} parcels",
                carrier.fields.carrier_slug,
                booking.tracking_numbers.len(),
                shipment.body.parcels.len()
            )));
        }
        for (parcel, number) in shipment
            .body
            .parcels
            .iter_mut()
            .zip(&booking.tracking_numbers)
        {
            parcel.tracking_number = Some(number.clone()).filter(|n| !n.is_empty());
        }
        let mut documents = if booking.labels.is_empty() {
            labels::labels(&shipment, &carrier, &now)?
        } else {
            labels::carrier_labels(&shipment, booking.labels, &now)
        };
        documents.extend(paperwork::render(
            &extra.documents,
            &shipment,
            labels::carrier_name(&carrier),
            extra.exporter,
            &now,
        )?);
        let tracking = Tracking {
            url: booking.tracking_url,
            number: booking
                .tracking_numbers
                .first()
                .filter(|n| !n.is_empty())
                .cloned(),
            status: Some(TrackingStatus::Created),
            events: Vec::new(),
        };
        Ok(Booked {
            tracking,
            parcel_numbers: booking.tracking_numbers,
            documents,
            at_carrier,
        })
    };
    crate::blocking::run(work).await.map_err(|err| Prepared {
        err,
        carrier_booked: at_carrier,
    })
}

/// Why a booking could not be prepared, and whether the carrier had booked by then.
pub(crate) struct Prepared {
    pub err: Error,
    pub carrier_booked: bool,
}

impl Prepared {
    fn before(err: Error) -> Prepared {
        Prepared {
            err,
            carrier_booked: false,
        }
    }
}

/// Puts a booking on the shipment (tracking, status processing); returns its documents, for
/// `save` to write with it.
pub(crate) fn apply(shipment: &mut ShipmentRecord, booked: Booked, now: String) -> Vec<Document> {
    shipment.body.tracking = Some(booked.tracking);
    // The shipment is the one the numbers were made for (booking checks it did not change).
    for (parcel, number) in shipment.body.parcels.iter_mut().zip(booked.parcel_numbers) {
        parcel.tracking_number = Some(number).filter(|n| !n.is_empty());
    }
    shipment.status = ShipmentStatus::Processing;
    shipment.updated_at = now;
    booked
        .documents
        .into_iter()
        .map(|doc| Document {
            shipment_id: shipment.id.clone(),
            ..doc
        })
        .collect()
}
