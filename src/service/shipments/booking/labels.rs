//! The labels and papers of a booking that Shipbase makes or takes from the carrier.

use crate::{
    carriers::{
        CarrierLabel,
        label::{self, LabelInput, LabelSize},
    },
    error::Result,
    model::{
        carrier::CarrierRecord,
        document::{self, Document},
        ids,
        shipment::ShipmentRecord,
    },
    service::shipments::parties::{printed_parties, printed_service_point},
};

/// The carrier's own label files as the shipment's label documents.
pub(super) fn carrier_labels(
    shipment: &ShipmentRecord,
    labels: Vec<CarrierLabel>,
    now: &str,
) -> Vec<Document> {
    labels
        .into_iter()
        .map(|label| Document {
            id: ids::new(ids::DOCUMENT),
            org_id: shipment.org_id.clone(),
            shipment_id: shipment.id.clone(),
            document_type: document::LABEL.into(),
            format: label.format.into(),
            size: label.size.into(),
            content: document::content(label.content),
            created_at: now.to_string(),
            updated_at: now.to_string(),
        })
        .collect()
}

/// One label per parcel, in the carrier's configured size (A4 unless `labelSize` says 100X150)
/// and format (PDF unless `labelFormat` says zpl; ZPL labels are always 100X150).
pub(super) fn labels(
    shipment: &ShipmentRecord,
    carrier: &CarrierRecord,
    now: &str,
) -> Result<Vec<Document>> {
    let size = carrier
        .fields
        .config
        .get("labelSize")
        .and_then(|v| v.as_str())
        .and_then(LabelSize::parse)
        .unwrap_or(LabelSize::A4);
    let zpl = carrier.fields.label_format() == document::ZPL;
    let size = if zpl { LabelSize::Label100x150 } else { size };
    let (sender, receiver) = printed_parties(
        shipment,
        "a shipment needs a sender and a receiver to be labelled",
    )?;
    let service_point = printed_service_point(shipment);
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
                service_point: service_point.clone(),
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
                content: document::content(if zpl {
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
pub(super) fn carrier_name(carrier: &CarrierRecord) -> &str {
    carrier
        .fields
        .config
        .get("carrierName")
        .and_then(|v| v.as_str())
        .unwrap_or(&carrier.fields.name)
}
