//! `shipbase dev seed`: realistic shipments in bulk, to measure how the service behaves as an
//! organization grows (benches/run.sh seeds a million). They are written through the one path
//! every shipment write takes, in jobs of a few thousand, so plan usage and events stay true.

use serde_json::json;

use crate::{
    error::Result,
    model::{sender_address::SenderAddress, shipment::ShipmentIn, status::ShipmentStatus, time},
    service::{
        Actor, Ctx, Input, PageParams, carriers, decode_value, operations, sender_addresses,
        shipments,
    },
};

/// Shipments written per write job.
const PER_JOB: u64 = 5_000;

/// Where the seeded shipments go, and how many there are to make.
pub struct Seed {
    pub org_id: String,
    pub shipments: u64,
}

/// Writes `seed.shipments` shipments into the organization, dated one minute apart up to now;
/// uses its first sender address and carrier (making a sandbox pair when it has none). Needs
/// the right to create shipments there (the command line acts as the administrator).
pub async fn shipments(ctx: &Ctx, actor: &Actor, seed: Seed) -> Result<u64> {
    actor.authorize(&seed.org_id, &operations::CREATE_SHIPMENT)?;
    let (address, carrier_id) = sender_and_carrier(ctx, actor, &seed.org_id).await?;
    let now = ctx.clock.now();
    let mut written = 0;
    while written < seed.shipments {
        let upto = (written + PER_JOB).min(seed.shipments);
        let (address, carrier_id, total) = (address.clone(), carrier_id.clone(), seed.shipments);
        ctx.db
            .write(move |tx| {
                for i in written..upto {
                    let at = now - ::time::Duration::minutes(i64::try_from(total - i).unwrap_or(0));
                    let (new, status) = shipment(i, &address.id, &carrier_id)?;
                    shipments::seed_in(tx, &address, new, time::format(at), status)?;
                }
                Ok(())
            })
            .await?;
        written = upto;
    }
    Ok(written)
}

async fn sender_and_carrier(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
) -> Result<(SenderAddress, String)> {
    let first = || PageParams {
        page: None,
        limit: Some("1".into()),
    };
    let address = match sender_addresses::list(ctx, actor, org_id, first())
        .await?
        .data
        .into_iter()
        .next()
    {
        Some(address) => address,
        None => {
            let fields = decode_value(json!({"name": "Seed warehouse", "attContact": "Mette",
                "address1": "Industrivej 12", "zipcode": "8000", "city": "Aarhus",
                "phone": "+4512345678", "countryCode": "DK", "state": "Midtjylland",
                "email": "warehouse@example.com"}))?;
            sender_addresses::create(ctx, actor, org_id, Input::ok(fields)).await?
        }
    };
    let carrier = match carriers::list(ctx, actor, org_id, first())
        .await?
        .data
        .into_iter()
        .next()
    {
        Some(carrier) => carrier,
        None => {
            let fields = decode_value(json!({"name": "Sandbox", "carrierSlug": "sandbox",
                "config": {}, "senderAddressId": address.id}))?;
            carriers::create(ctx, actor, org_id, Input::ok(fields)).await?
        }
    };
    Ok((address, carrier.carrier.id))
}

const RECEIVERS: [(&str, &str, &str, &str); 4] = [
    ("Jane Doe", "Storgatan 1", "11122", "Stockholm"),
    ("Ola Nordmann", "Karl Johans gate 5", "0154", "Oslo"),
    ("Erika Mustermann", "Hauptstraße 7", "10115", "Berlin"),
    ("Mads Jensen", "Vestergade 3", "8000", "Aarhus"),
];
const COUNTRIES: [&str; 4] = ["SE", "NO", "DE", "DK"];

/// The `i`th seeded shipment: the shape of a web shop's (a receiver, a parcel, three order
/// lines), varied by `i`; most are dispatched, as in a shop's history.
fn shipment(i: u64, address_id: &str, carrier_id: &str) -> Result<(ShipmentIn, ShipmentStatus)> {
    let k = usize::try_from(i % 4).unwrap_or(0);
    let (name, street, postal_code, city) = RECEIVERS[k];
    let new = decode_value(json!({
        "reference": format!("SEED-{i}"),
        "senderAddressId": address_id,
        "type": "outbound",
        "parties": [{"type": "receiver", "name": name, "address1": street,
            "postalCode": postal_code, "city": city, "countryCode": COUNTRIES[k],
            "email": "customer@example.com", "phone": "+46701234567"}],
        "carrierSettings": {"carrierId": carrier_id, "productId": "standard", "services": ["signature"]},
        "parcels": [{"weight": 0.5 + (i % 40) as f64 / 10.0, "weightUnit": "kg",
            "dimensions": {"length": 30, "width": 20, "height": 10},
            "orderLines": [
                {"sku": format!("TS-{}", i % 97), "quantity": 1 + i % 3, "description": "T-shirt, organic cotton",
                 "unitPrice": 100.0, "currency": "DKK", "countryOfOrigin": "DK", "tarrifNumber": "610910"},
                {"sku": "MUG-7", "quantity": 1, "description": "Enamel mug, blue",
                 "unitPrice": 60.0, "currency": "DKK", "countryOfOrigin": "DK", "tarrifNumber": "732394"},
                {"sku": "CAP-3", "quantity": 1, "description": "Baseball cap, black",
                 "unitPrice": 80.0, "currency": "DKK", "countryOfOrigin": "PT", "tarrifNumber": "650500"}]}],
        "termOfTrade": "DAP"
    }))?;
    let status = match i % 20 {
        0 => ShipmentStatus::Pending,
        1 => ShipmentStatus::Cancelled,
        _ => ShipmentStatus::Dispatched,
    };
    Ok((new, status))
}
