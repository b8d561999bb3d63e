//! End of day: a manifest closes a carrier's booked shipments that no manifest
//! holds yet (of one booking day when a date is given): the carrier's own close call where it
//! has one, then the A4 list the driver signs, written with the shipments it closes in one
//! transaction, so that no shipment is in two manifests.

use std::collections::HashMap;

use crate::{
    carriers::{
        self,
        customs::manifest::{ManifestSheet, Row},
    },
    error::{Error, Result},
    model::{
        carrier::CarrierRecord,
        event::EventKind,
        ids,
        manifest::{
            self, Manifest, ManifestDocument, ManifestIn, ManifestPage, ManifestPrintIn,
            RefusedShipment,
        },
        pickup::parse_date,
        printer::PrintJob,
        shipment::ShipmentRecord,
        time, timezone,
    },
    service::{
        Actor, Ctx, Input, PageParams, emit::Emitter, operations as ops, page_query, printers,
    },
    store,
};

/// What closing reads: the carrier (secrets in clear), the organization's name, and the
/// shipments to close with the day each was booked at its sender.
struct Day {
    carrier: CarrierRecord,
    organization: String,
    shipments: Vec<ShipmentRecord>,
    date: String,
    addresses: Vec<String>,
}

pub async fn create(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<ManifestIn>,
) -> Result<Manifest> {
    let grant = actor.authorize(org_id, &ops::CREATE_MANIFEST)?;
    let fields = input.get()?;
    if let Some(date) = &fields.date
        && parse_date(date).is_none()
    {
        return Err(Error::invalid("date", "must be a date as YYYY-MM-DD"));
    }
    let day = ctx.db.point(|db| read_day(ctx, db, org_id, &fields))?;
    let adapter = carriers::find(&day.carrier.fields.carrier_slug).ok_or_else(|| {
        Error::InvalidState(format!(
            "carrier type {} is not available",
            day.carrier.fields.carrier_slug
        ))
    })?;
    let carrier_closed = adapter.closes_day();
    let closed = if carrier_closed {
        adapter
            .close_day(&ctx.carriers, &day.carrier, &day.shipments)
            .await?
    } else {
        carriers::pickup::Closed::default()
    };
    let by_number: HashMap<&str, &str> = closed
        .refused
        .iter()
        .map(|(number, why)| (number.as_str(), why.as_str()))
        .collect();
    let refusal = |s: &ShipmentRecord| {
        s.body
            .parcels
            .iter()
            .filter_map(|p| p.tracking_number.as_deref())
            .chain(s.body.tracking.as_ref().and_then(|t| t.number.as_deref()))
            .find_map(|n| by_number.get(n).map(|why| why.to_string()))
    };
    let mut refused = Vec::new();
    let mut rows = Vec::new();
    let mut closed_ids = Vec::new();
    for shipment in &day.shipments {
        let why = refusal(shipment);
        match &why {
            Some(message) => refused.push(RefusedShipment {
                shipment_id: shipment.id.clone(),
                tracking_number: first_number(shipment),
                message: message.clone(),
            }),
            None => closed_ids.push(shipment.id.clone()),
        }
        rows.extend(rows_of(shipment, why));
    }
    if closed_ids.is_empty() {
        let words: Vec<String> = refused.iter().map(|r| r.message.clone()).collect();
        return Err(Error::CarrierRejected(format!(
            "{} closed none of the {} shipments: {}",
            day.carrier.fields.named(),
            day.shipments.len(),
            words.join("; ")
        )));
    }
    let now = ctx.now();
    let id = ids::new(ids::MANIFEST);
    let sheet = ManifestSheet {
        id: id.clone(),
        carrier: day.carrier.fields.named(),
        date: day.date.clone(),
        organization: day.organization.clone(),
        collected_from: day.addresses.clone(),
        carrier_reference: closed.reference.clone(),
        shipment_count: closed_ids.len(),
        rows,
    };
    let (content, parcel_count, total_weight) = crate::blocking::run(move || {
        Ok((
            carriers::customs::manifest::pdf(&sheet)?,
            sheet.parcel_count(),
            sheet.total_weight(),
        ))
    })
    .await?;
    let made = Manifest {
        id: id.clone(),
        org_id: org_id.to_string(),
        carrier_id: fields.carrier_id.clone(),
        date: day.date,
        shipment_count: u32::try_from(closed_ids.len()).unwrap_or(u32::MAX),
        shipment_ids: closed_ids,
        parcel_count: u32::try_from(parcel_count).unwrap_or(u32::MAX),
        total_weight,
        carrier_reference: closed.reference,
        carrier_closed,
        refused,
        document: ManifestDocument {
            id: ids::new(ids::DOCUMENT),
            document_type: manifest::DOCUMENT_TYPE.into(),
            format: crate::model::document::PDF.into(),
            size: "A4".into(),
            content: manifest::content(content),
            created_at: now.clone(),
            updated_at: now.clone(),
        },
        created_at: now,
    };
    ctx.commit(grant.on(&id), move |tx| {
        store::manifests::insert(tx, &made)?;
        let at = made.created_at.clone();
        Emitter::new(tx, &made.org_id, &at, || Ok(made.clone()))
            .emit(EventKind::ManifestCreated)?;
        Ok(made)
    })
    .await
}

pub async fn list(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    page: PageParams,
) -> Result<ManifestPage> {
    actor.authorize(org_id, &ops::LIST_MANIFESTS)?;
    let page = page_query(&page)?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |db| store::manifests::list(db, &org_id, page))
        .await
        .map(Into::into)
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<Manifest> {
    actor.authorize(org_id, &ops::GET_MANIFEST)?;
    ctx.db
        .point(|db| store::manifests::get(db, org_id, id)?.ok_or(Error::NotFound))
}

/// A manifest's document by the document's id (an agent's resource link).
pub async fn document(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    document_id: &str,
) -> Result<ManifestDocument> {
    actor.authorize(org_id, &ops::GET_MANIFEST)?;
    ctx.db.point(|db| {
        store::manifests::by_document(db, org_id, document_id)?
            .map(|m| m.document)
            .ok_or(Error::NotFound)
    })
}

/// The name a manifest's PDF is saved under: `manifest-<date>-<id>.pdf`.
pub fn filename(manifest: &Manifest) -> String {
    format!("manifest-{}-{}.pdf", manifest.date, manifest.id)
}

/// Sends a manifest's PDF to a printer that takes PDF (the job carries the file).
pub async fn print(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<ManifestPrintIn>,
) -> Result<PrintJob> {
    let grant = actor.authorize(org_id, &ops::PRINT_MANIFEST)?.on(id);
    let request = input.get()?;
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    let job = ctx
        .commit(grant, move |tx| {
            let manifest = store::manifests::get(tx, &org_id, &id)?.ok_or(Error::NotFound)?;
            let printer = printers::require(tx, &org_id, &request.printer_id, "printerId")?;
            if printer.fields.format != crate::model::document::PDF {
                return Err(Error::Conflict(format!(
                    "printer {} takes {}, but a manifest is a PDF",
                    printer.fields.name, printer.fields.format
                )));
            }
            let title = format!("Manifest {} {}", manifest.date, manifest.id);
            crate::service::printing::queue_carried(
                tx,
                &org_id,
                &printer.id,
                &manifest.document.id,
                &manifest.document.content.0,
                &title,
                &now,
            )
        })
        .await?;
    ctx.printing.queued();
    Ok(job)
}

fn first_number(shipment: &ShipmentRecord) -> Option<String> {
    shipment
        .body
        .parcels
        .first()
        .and_then(|p| p.tracking_number.clone())
        .or_else(|| {
            shipment
                .body
                .tracking
                .as_ref()
                .and_then(|t| t.number.clone())
        })
}

/// The manifest's rows of a shipment: one per parcel.
fn rows_of(shipment: &ShipmentRecord, refused: Option<String>) -> Vec<Row> {
    let receiver = shipment
        .body
        .parties
        .iter()
        .find(|p| p.kind == "receiver")
        .map(|p| format!("{}, {}, {}", p.name, p.city, p.country_code))
        .unwrap_or_default();
    let parcels = shipment.body.parcels.len();
    shipment
        .body
        .parcels
        .iter()
        .enumerate()
        .map(|(i, parcel)| Row {
            reference: shipment.reference.clone(),
            receiver: receiver.clone(),
            parcel: i + 1,
            parcels,
            tracking_number: parcel.tracking_number.clone().unwrap_or_default(),
            weight_kg: parcel.weight_kg(),
            refused: refused.clone(),
        })
        .collect()
}

/// The day it is at `at` where the shipment leaves (the zone of its sender party's country and
/// postcode).
fn day_at_sender(shipment: &ShipmentRecord, at: time::Timestamp) -> Option<jiff::civil::Date> {
    let sender = sender_of(shipment)?;
    let zone = timezone::zone_of(&sender.country_code, &sender.postal_code);
    Some(timezone::local(at, zone).date())
}

fn sender_of(shipment: &ShipmentRecord) -> Option<&crate::model::shipment::Party> {
    shipment.body.parties.iter().find(|p| p.kind == "sender")
}

fn read_day(ctx: &Ctx, db: &store::Reader, org_id: &str, fields: &ManifestIn) -> Result<Day> {
    let carrier = store::carriers::get(db, org_id, &fields.carrier_id)?
        .map(|view| view.carrier)
        .ok_or_else(|| {
            Error::invalid(
                "carrierId",
                format!("no carrier {} in this organization", fields.carrier_id),
            )
        })?;
    let organization = store::orgs::get(db, org_id)?.ok_or(Error::NotFound)?.name;
    let wanted = fields.date.as_deref().and_then(parse_date);
    let shipments: Vec<ShipmentRecord> = store::manifests::unclosed(db, org_id, &carrier.id)?
        .into_iter()
        .filter(|(shipment, finished_at)| {
            wanted.is_none()
                || time::parse(finished_at).and_then(|at| day_at_sender(shipment, at)) == wanted
        })
        .map(|(shipment, _)| shipment)
        .collect();
    let Some(first) = shipments.first() else {
        let when = match &fields.date {
            Some(date) => format!(" booked on {date}"),
            None => String::new(),
        };
        return Err(Error::InvalidState(format!(
            "{} has no booked shipments{when} left to close",
            carrier.fields.named()
        )));
    };
    // Without a date, the manifest is dated today where the first shipment leaves.
    let date = match &fields.date {
        Some(date) => date.clone(),
        None => day_at_sender(first, ctx.clock.now())
            .map(|d| d.to_string())
            .unwrap_or_default(),
    };
    let mut addresses: Vec<String> = Vec::new();
    for shipment in &shipments {
        if let Some(p) = sender_of(shipment) {
            let line = format!(
                "{}, {}, {} {}, {}",
                p.name, p.address1, p.postal_code, p.city, p.country_code
            );
            if !addresses.contains(&line) {
                addresses.push(line);
            }
        }
    }
    Ok(Day {
        carrier: crate::service::carriers::reveal(&ctx.vault, db, carrier)?,
        organization,
        shipments,
        date,
        addresses,
    })
}
