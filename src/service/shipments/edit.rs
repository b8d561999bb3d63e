//! Editing a shipment before it is booked (DESIGN §7): a JSON Merge Patch over the writable
//! fields of a create, validated like a create; parcel and order-line ids given are kept.

use crate::model::shipment::ShipmentPatch;

use crate::{
    error::{Error, FieldError, Result},
    model::shipment::{Shipment, ShipmentBody, ShipmentIn},
    service::{
        Actor, Ctx, Input,
        input::{merge_patch::MergePatch, whole},
        input_value, operations as ops, sender_addresses,
        shipments::{Change, fill_defaults, open_order, require, save, view_of},
    },
};

pub async fn update(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    input: Input<MergePatch<ShipmentPatch>>,
) -> Result<Shipment> {
    let grant = actor.authorize(org_id, &ops::UPDATE_SHIPMENT)?.on(id);
    let patch = input.get().map_err(explain_status)?;
    let (org_id, id, now) = (org_id.to_string(), id.to_string(), ctx.now());
    ctx.write(grant, move |tx| {
        let before = require(tx, &org_id, &id)?;
        if !before.status.is_unbooked() {
            return Err(Error::InvalidState(format!(
                "only draft, pending, on_hold or error shipments can be edited; this one is {}",
                before.status
            )));
        }
        let current = serde_json::to_value(writable(&before))
            .map_err(|e| Error::internal(format!("cannot write a shipment as JSON: {e}")))?;
        // Every problem of the edited shipment at once, its references included.
        let mut edited: ShipmentIn = whole::checked_in(
            tx,
            input_value(patch.apply(current)),
            |edited: &ShipmentIn, errors| {
                edited.check(errors);
                super::parties::printable(&edited.parties, errors);
            },
            |db, edited, errors| super::references(db, &org_id, edited, errors).map(drop),
        )?;
        let address =
            sender_addresses::require(tx, &org_id, &edited.sender_address_id, "senderAddressId")?;
        if let Some(order_id) = &edited.order_id
            && before.order_id.as_ref() != Some(order_id)
        {
            open_order(tx, &org_id, order_id)?;
        }
        fill_defaults(&mut edited, &address);
        let mut shipment = before.clone();
        shipment.reference = edited.reference;
        shipment.sender_address_id = edited.sender_address_id;
        shipment.kind = edited.kind;
        shipment.term_of_trade = edited
            .term_of_trade
            .unwrap_or_else(|| crate::model::shipment::DEFAULT_TERM_OF_TRADE.into());
        shipment.order_id = edited.order_id;
        shipment.body = ShipmentBody {
            parties: edited.parties,
            carrier_settings: edited.carrier_settings,
            parcels: edited.parcels,
            service_point_id: edited.service_point_id,
            pickup_details: edited.pickup_details,
            tracking: before.body.tracking.clone(),
            language: edited.language,
            tracking_url: before.body.tracking_url.clone(),
        };
        shipment.updated_at = now;
        save(tx, &shipment, Change::Updated(&before), &[])?;
        view_of(tx, shipment)
    })
    .await
}

/// The shipment as a create would have written it (without its status, which a patch may not
/// set).
fn writable(s: &crate::model::shipment::ShipmentRecord) -> ShipmentIn {
    ShipmentIn {
        reference: s.reference.clone(),
        sender_address_id: s.sender_address_id.clone(),
        parties: s.body.parties.clone(),
        kind: s.kind.clone(),
        carrier_settings: s.body.carrier_settings.clone(),
        parcels: s.body.parcels.clone(),
        service_point_id: s.body.service_point_id.clone(),
        pickup_details: s.body.pickup_details.clone(),
        term_of_trade: Some(s.term_of_trade.clone()),
        status: None,
        order_id: s.order_id.clone(),
        language: s.body.language.clone(),
    }
}

/// `status` is not a field of the patch: say where status moves go.
fn explain_status(err: Error) -> Error {
    match err {
        Error::Validation(errors) => Error::Validation(
            errors
                .into_iter()
                .map(|e| match e.field.as_str() {
                    "status" => FieldError {
                        field: e.field,
                        message: "cannot be edited; move the status with POST .../shipments/{shipmentId}/status".into(),
                    },
                    _ => e,
                })
                .collect(),
        ),
        other => other,
    }
}
