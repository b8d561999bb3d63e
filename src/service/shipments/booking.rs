//! Booking (DESIGN §7): the carrier adapter gives a tracking number, Shipbase renders one label
//! per parcel, and the shipment moves pending → processing. The carrier call and the PDF work
//! happen outside the write transaction; the write then checks nothing changed meanwhile.

use poem_openapi::types::Base64;

use crate::{
    carriers::{
        self, CarrierLabel,
        label::{self, LabelAddress, LabelInput, LabelSize},
    },
    error::{Error, Result},
    model::{
        carrier::Carrier,
        document::{self, Document},
        ids,
        shipment::{Party, Shipment, ShipmentView, Tracking},
        status::{ShipmentStatus, TrackingStatus},
    },
    service::{
        Actor, Ctx, Input, operations as ops,
        shipments::{
            Change,
            paperwork::{self, BookRequest},
            require, save, view_of,
        },
    },
    store::{self, Reader},
};

/// What a booking adds to a shipment.
pub(crate) struct Booked {
    pub tracking: Tracking,
    /// One per parcel, in order.
    pub parcel_numbers: Vec<String>,
    pub documents: Vec<Document>,
}

pub async fn book(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<BookRequest>,
) -> Result<ShipmentView> {
    let grant = actor.authorize(org_id, &ops::BOOK_SHIPMENT)?.on(id);
    let asked = match input.get()?.documents {
        Some(documents) => Some(paperwork::asked(&documents)?),
        None => None,
    };
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
        let customs = if documents.is_empty() {
            Vec::new()
        } else {
            let address = store::sender_addresses::get(db, &org, &shipment.sender_address_id)?;
            paperwork::customs_ids(address.as_ref().and_then(|a| a.fields.customs.as_ref()))
        };
        Ok((shipment, carrier, Extra { documents, customs }))
    })?;
    let now = ctx.now();
    let seen = shipment.updated_at.clone();
    let booked = prepare(ctx, shipment, carrier, now.clone(), extra).await?;
    let (org_id, id) = (org_id.to_string(), id.to_string());
    let view = ctx
        .commit(grant, move |tx| {
            let before = require(tx, &org_id, &id)?;
            if before.status != ShipmentStatus::Pending {
                return Err(not_bookable(before.status));
            }
            if before.updated_at != seen {
                return Err(Error::InvalidState(
                    "the shipment changed while it was being booked; book it again".into(),
                ));
            }
            let mut shipment = before.clone();
            let documents = apply(&mut shipment, booked, now.clone());
            save(tx, &shipment, Change::Updated(&before), &documents)?;
            let rule = paperwork::rule_of(tx, &shipment)?;
            paperwork::queue_prints(tx, rule.as_ref(), &documents, &now)?;
            view_of(tx, shipment)
        })
        .await?;
    ctx.printing.queued();
    Ok(view)
}

/// What booking makes besides labels.
#[derive(Debug, Default)]
pub(crate) struct Extra {
    /// Customs and shop document types, in the order to make them.
    pub documents: Vec<&'static str>,
    /// The sender address's customs identifiers, for the invoices.
    pub customs: Vec<(String, String)>,
}

fn not_bookable(status: ShipmentStatus) -> Error {
    Error::InvalidState(format!(
        "only a pending shipment can be booked; this one is {status}"
    ))
}

/// The carrier named by the shipment's carrier settings, with its secrets in clear (for its
/// adapter only; never answered).
pub(crate) fn carrier_of(ctx: &Ctx, db: &Reader, shipment: &Shipment) -> Result<Carrier> {
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
pub(crate) async fn prepare(
    ctx: &Ctx,
    shipment: Shipment,
    carrier: Carrier,
    now: String,
    extra: Extra,
) -> Result<Booked> {
    let adapter = carriers::find(&carrier.fields.carrier_slug).ok_or_else(|| {
        Error::InvalidState(format!(
            "carrier type {} is not available",
            carrier.fields.carrier_slug
        ))
    })?;
    let booking = adapter.book(&ctx.carriers, &shipment, &carrier).await?;
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
            parcel.tracking_number = Some(number.clone());
        }
        let mut documents = if booking.labels.is_empty() {
            labels(&shipment, &carrier, &now)?
        } else {
            carrier_labels(&shipment, booking.labels, &now)
        };
        documents.extend(paperwork::render(
            &extra.documents,
            &shipment,
            carrier_name(&carrier),
            extra.customs,
            &now,
        )?);
        let tracking = Tracking {
            url: booking.tracking_url,
            number: booking.tracking_numbers.first().cloned(),
            status: Some(TrackingStatus::Created),
            events: Vec::new(),
        };
        Ok(Booked {
            tracking,
            parcel_numbers: booking.tracking_numbers,
            documents,
        })
    };
    crate::blocking::run(work).await
}

/// The carrier's own label files as the shipment's label documents.
fn carrier_labels(shipment: &Shipment, labels: Vec<CarrierLabel>, now: &str) -> Vec<Document> {
    labels
        .into_iter()
        .map(|label| Document {
            id: ids::new(ids::DOCUMENT),
            org_id: shipment.org_id.clone(),
            shipment_id: shipment.id.clone(),
            document_type: document::LABEL.into(),
            format: label.format.into(),
            size: label.size.into(),
            content: Base64(label.content),
            created_at: now.to_string(),
            updated_at: now.to_string(),
        })
        .collect()
}

/// Puts a booking on the shipment (tracking, status processing); returns its documents, for
/// `save` to write with it.
pub(crate) fn apply(shipment: &mut Shipment, booked: Booked, now: String) -> Vec<Document> {
    shipment.body.tracking = Some(booked.tracking);
    // The shipment is the one the numbers were made for (booking checks it did not change).
    for (parcel, number) in shipment.body.parcels.iter_mut().zip(booked.parcel_numbers) {
        parcel.tracking_number = Some(number);
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

/// One label per parcel, in the carrier's configured size (A4 unless `labelSize` says 100X150)
/// and format (PDF unless `labelFormat` says zpl; ZPL labels are always 100X150).
fn labels(shipment: &Shipment, carrier: &Carrier, now: &str) -> Result<Vec<Document>> {
    let size = carrier
        .fields
        .config
        .get("labelSize")
        .and_then(|v| v.as_str())
        .and_then(LabelSize::parse)
        .unwrap_or(LabelSize::A4);
    let zpl = carrier
        .fields
        .config
        .get("labelFormat")
        .and_then(|v| v.as_str())
        == Some("zpl");
    let size = if zpl { LabelSize::Label100x150 } else { size };
    let (sender, receiver) = printed_parties(
        shipment,
        "a shipment needs a sender and a receiver to be labelled",
    )?;
    let count = shipment.body.parcels.len();
    let carrier_name = carrier_name(carrier);
    shipment
        .body
        .parcels
        .iter()
        .enumerate()
        .map(|(i, parcel)| {
            let input = LabelInput {
                carrier_name: carrier_name.to_string(),
                product: shipment.body.carrier_settings.product_id.clone(),
                services: shipment.body.carrier_settings.services.clone(),
                tracking_number: parcel.tracking_number.clone().unwrap_or_default(),
                reference: shipment.reference.clone(),
                sender: sender.clone(),
                receiver: receiver.clone(),
                weight_kg: parcel.weight_kg(),
                parcel_index: i + 1,
                parcel_count: count,
                created_at: now.to_string(),
            };
            Ok(Document {
                id: ids::new(ids::DOCUMENT),
                org_id: shipment.org_id.clone(),
                shipment_id: shipment.id.clone(),
                document_type: document::LABEL.into(),
                format: if zpl { document::ZPL } else { document::PDF }.into(),
                size: size.as_str().into(),
                content: Base64(if zpl {
                    if input.tracking_number.is_empty() {
                        return Err(Error::Internal("a parcel has no tracking number".into()));
                    }
                    label::zpl::render(&input).into_bytes()
                } else {
                    label::render(&input, size)?
                }),
                created_at: now.to_string(),
                updated_at: now.to_string(),
            })
        })
        .collect()
}

/// The carrier's name as labels print it: its config's `carrierName`, else its own name.
fn carrier_name(carrier: &Carrier) -> &str {
    carrier
        .fields
        .config
        .get("carrierName")
        .and_then(|v| v.as_str())
        .unwrap_or(&carrier.fields.name)
}

/// The shipment's sender and receiver as documents print them; `missing` is the error's text
/// when one is missing.
pub(super) fn printed_parties(
    shipment: &Shipment,
    missing: &str,
) -> Result<(LabelAddress, LabelAddress)> {
    let party = |kind: &str| {
        shipment
            .body
            .parties
            .iter()
            .find(|p| p.kind == kind)
            .map(address)
    };
    match (party("sender"), party("receiver")) {
        (Some(sender), Some(receiver)) => Ok((sender, receiver)),
        _ => Err(Error::InvalidState(missing.into())),
    }
}

fn address(p: &Party) -> LabelAddress {
    LabelAddress {
        name: p.name.clone(),
        attention: p.attention.clone(),
        address1: p.address1.clone(),
        address2: p.address2.clone(),
        postal_code: p.postal_code.clone(),
        city: p.city.clone(),
        country_code: p.country_code.clone(),
        phone: p.phone.clone(),
    }
}

/// A document as a file to download, with the name to save it under.
pub struct Download {
    pub document: Document,
    /// `<reference>-<documentType>-<n>.<format>` (DESIGN §17): `n` counts the shipment's
    /// documents of that type from 1; characters other than ASCII letters, digits, `.`, `_` and
    /// `-` become `_`.
    pub filename: String,
}

/// A document of a shipment, for raw download.
pub async fn document(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    shipment_id: &str,
    id: &str,
) -> Result<Download> {
    actor.authorize(org_id, &ops::GET_SHIPMENT_DOCUMENT)?;
    ctx.db.point(|db| {
        let shipment = require(db, org_id, shipment_id)?;
        let document =
            store::documents::get(db, org_id, shipment_id, id)?.ok_or(Error::NotFound)?;
        let n = store::documents::ordinal(db, org_id, shipment_id, id)?.unwrap_or(1);
        let filename = filename(&shipment.reference, &document, n);
        Ok(Download { document, filename })
    })
}

fn filename(reference: &str, document: &Document, n: usize) -> String {
    let name = format!(
        "{reference}-{}-{n}.{}",
        document.document_type, document.format
    );
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_keep_only_safe_characters() {
        let document = Document {
            id: "doc_1".into(),
            org_id: "org_1".into(),
            shipment_id: "shp_1".into(),
            document_type: "label".into(),
            format: "pdf".into(),
            size: "A4".into(),
            content: poem_openapi::types::Base64(Vec::new()),
            created_at: String::new(),
            updated_at: String::new(),
        };
        assert_eq!(
            filename("Order #12/\"Łódź\"", &document, 2),
            "Order__12____d__-label-2.pdf"
        );
        assert_eq!(filename("REF-1001", &document, 1), "REF-1001-label-1.pdf");
    }
}
