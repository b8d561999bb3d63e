//! Split and batch split (DESIGN §7): units of one parcel move into new shipments, in one
//! transaction, all or nothing. The write transaction serializes concurrent splits, so units are
//! never duplicated or lost.

use crate::model::shipment::{BatchSplitIn, BatchSplitOut, SplitIn, SplitOut};
use std::collections::BTreeMap;

use poem_openapi::types::ToJSON;
use serde_json::Value;

use crate::{
    error::{Error, Result},
    model::{
        ids,
        shipment::{CarrierSettings, Parcel, ShipmentRecord},
        split::{self, SplitError, Take},
        validate::Violations,
    },
    service::{
        Actor, Ctx, Input,
        access::grant::Grant,
        carriers, operations as ops,
        shipments::{Change, require, save, view_of},
    },
    store::Tx,
};

/// Carrier settings for the new shipments; absent fields are copied from the original.
#[derive(Default)]
struct SettingsOverride {
    carrier_id: Option<String>,
    product_id: Option<String>,
    services: Option<Vec<String>>,
    additional_parameters: Option<BTreeMap<String, Value>>,
}

enum Plan {
    WholeParcel,
    /// Whole order lines into one new shipment (split by `orderLineIds`).
    WholeLines(Vec<String>),
    /// Quantities into one new shipment per part (batch split).
    Units(Vec<Vec<Take>>),
}

pub async fn split(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    parcel_id: &str,
    input: Input<SplitIn>,
) -> Result<SplitOut> {
    let grant = actor.authorize(org_id, &ops::SPLIT_PARCEL)?.on(id);
    let request = input.get()?;
    let settings = SettingsOverride {
        carrier_id: request.carrier_id,
        product_id: request.product_id,
        services: request.services,
        additional_parameters: request.additional_parameters,
    };
    check_common(
        &settings,
        std::slice::from_ref(&request.reference),
        "reference",
    )?;
    let plan = match request.order_line_ids {
        Some(ids) if !ids.is_empty() => Plan::WholeLines(ids),
        _ => Plan::WholeParcel,
    };
    let job = Job {
        plan,
        settings,
        references: vec![request.reference],
        field: "orderLineIds",
    };
    run(ctx, grant, org_id, id, parcel_id, job, |mut outcome| {
        let new_shipment = outcome
            .new_shipments
            .pop()
            .ok_or_else(|| Error::internal("a split made no shipment"))?;
        Ok(SplitOut {
            original_shipment: outcome.original_shipment,
            new_shipment,
        })
    })
    .await
}

pub async fn batch_split(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    id: &str,
    parcel_id: &str,
    input: Input<BatchSplitIn>,
) -> Result<BatchSplitOut> {
    let grant = actor.authorize(org_id, &ops::BATCH_SPLIT_PARCEL)?.on(id);
    let request = input.get()?;
    if request.shipments.is_empty() {
        return Err(Error::invalid("shipments", "must contain at least 1 item"));
    }
    let references: Vec<Option<String>> = request
        .shipments
        .iter()
        .map(|s| s.reference.clone())
        .collect();
    let settings = SettingsOverride {
        carrier_id: request.carrier_id,
        product_id: request.product_id,
        services: request.services,
        additional_parameters: request.additional_parameters,
    };
    check_common(&settings, &references, "shipments[].reference")?;
    let plan = Plan::Units(
        request
            .shipments
            .into_iter()
            .map(|s| {
                s.order_lines
                    .into_iter()
                    .map(|l| Take {
                        line_id: l.id,
                        quantity: l.quantity,
                    })
                    .collect()
            })
            .collect(),
    );
    let job = Job {
        plan,
        settings,
        references,
        field: "shipments",
    };
    run(ctx, grant, org_id, id, parcel_id, job, Ok).await
}

struct Job {
    plan: Plan,
    settings: SettingsOverride,
    references: Vec<Option<String>>,
    /// Where plan errors are reported.
    field: &'static str,
}

fn check_common(
    settings: &SettingsOverride,
    references: &[Option<String>],
    field: &str,
) -> Result<()> {
    let mut errors = Violations::new();
    for reference in references.iter().flatten() {
        errors.length(field, reference, 1, 200);
    }
    if let Some(product) = &settings.product_id {
        errors.length("productId", product, 1, 100);
    }
    errors.finish()
}

/// Runs a split as the operation's one write; `answer` makes the operation's answer of it.
async fn run<T: ToJSON + Send + 'static>(
    ctx: &Ctx,
    grant: Grant,
    org_id: &str,
    id: &str,
    parcel_id: &str,
    job: Job,
    answer: fn(BatchSplitOut) -> Result<T>,
) -> Result<T> {
    let (org_id, id, parcel_id, now) = (
        org_id.to_string(),
        id.to_string(),
        parcel_id.to_string(),
        ctx.now(),
    );
    ctx.commit(grant, move |tx| {
        answer(split_in(tx, &org_id, &id, &parcel_id, job, &now)?)
    })
    .await
}

fn split_in(
    tx: &Tx,
    org_id: &str,
    id: &str,
    parcel_id: &str,
    job: Job,
    now: &str,
) -> Result<BatchSplitOut> {
    let before = require(tx, org_id, id)?;
    let mut original = before.clone();
    let index = original
        .body
        .parcels
        .iter()
        .position(|p| p.id == parcel_id)
        .ok_or(Error::NotFound)?;
    if !original.status.is_unbooked() {
        return Err(Error::InvalidState(format!(
            "only draft, pending, on_hold or error shipments can be split; this one is {}",
            original.status
        )));
    }
    if let Some(carrier_id) = &job.settings.carrier_id {
        carriers::require(tx, org_id, carrier_id, "carrierId")?;
    }
    let parcel = original.body.parcels[index].clone();
    let new_parcels: Vec<Parcel> = match job.plan {
        Plan::WholeParcel => {
            if original.body.parcels.len() == 1 {
                return Err(Error::InvalidState(
                    "the only parcel of a shipment cannot be split off".into(),
                ));
            }
            original.body.parcels.remove(index);
            vec![parcel]
        }
        Plan::WholeLines(line_ids) => take_units(
            &mut original,
            index,
            &parcel,
            vec![whole_lines(&parcel, line_ids)],
            job.field,
        )?,
        Plan::Units(plan) => take_units(&mut original, index, &parcel, plan, job.field)?,
    };
    let done = original.splits_made;
    let mut created = Vec::with_capacity(new_parcels.len());
    for (n, (parcel, reference)) in new_parcels
        .into_iter()
        .zip(job.references.iter().cycle())
        .enumerate()
    {
        let reference = reference
            .clone()
            .unwrap_or_else(|| format!("{}-{}", original.reference, done + n as i64 + 1));
        let shipment = split_off(&original, parcel, reference, &job.settings, now);
        save(tx, &shipment, Change::Created(None), &[])?;
        created.push(view_of(tx, shipment)?);
    }
    original.splits_made += created.len() as i64;
    original.updated_at = now.to_string();
    save(tx, &original, Change::Updated(&before), &[])?;
    Ok(BatchSplitOut {
        original_shipment: view_of(tx, original)?,
        new_shipments: created,
    })
}

/// Takes for whole order lines; an unknown id is left to `split::take` to refuse.
fn whole_lines(parcel: &Parcel, line_ids: Vec<String>) -> Vec<Take> {
    line_ids
        .into_iter()
        .map(|line_id| {
            let quantity = parcel
                .order_lines
                .iter()
                .find(|l| l.id == line_id)
                .map_or(0, |l| l.quantity);
            Take { line_id, quantity }
        })
        .collect()
}

/// Applies a units plan to the parcel at `index` of `original`; returns the new parcels.
fn take_units(
    original: &mut ShipmentRecord,
    index: usize,
    parcel: &Parcel,
    plan: Vec<Vec<Take>>,
    field: &str,
) -> Result<Vec<Parcel>> {
    let taken = split::take(parcel, &plan).map_err(|e| plan_error(field, e))?;
    match taken.remaining {
        Some(rest) => original.body.parcels[index] = rest,
        None => {
            original.body.parcels.remove(index);
        }
    }
    if original.body.parcels.is_empty() {
        return Err(Error::InvalidState(
            "a split may not leave the original shipment without parcels".into(),
        ));
    }
    Ok(taken.parts)
}

fn plan_error(field: &str, err: SplitError) -> Error {
    match err {
        SplitError::EmptyPart { part } => Error::invalid(
            format!("{field}[{part}].orderLines"),
            "must contain at least 1 item",
        ),
        SplitError::UnknownLine { line_id, .. } => {
            Error::invalid(field, format!("the parcel has no order line {line_id}"))
        }
        SplitError::BadQuantity { part, line_id } => Error::invalid(
            format!("{field}[{part}].orderLines"),
            format!("quantity of {line_id} must be at least 1"),
        ),
        SplitError::TooMany {
            line_id,
            asked,
            available,
        } => Error::invalid(
            field,
            format!(
                "{asked} units of order line {line_id} asked for, but the parcel holds {available}"
            ),
        ),
    }
}

/// A new pending shipment holding `parcel`, with the original's parties and terms (DESIGN §7).
fn split_off(
    original: &ShipmentRecord,
    parcel: Parcel,
    reference: String,
    over: &SettingsOverride,
    now: &str,
) -> ShipmentRecord {
    let base = &original.body.carrier_settings;
    let settings = CarrierSettings {
        carrier_id: over
            .carrier_id
            .clone()
            .unwrap_or_else(|| base.carrier_id.clone()),
        product_id: over
            .product_id
            .clone()
            .unwrap_or_else(|| base.product_id.clone()),
        services: over
            .services
            .clone()
            .unwrap_or_else(|| base.services.clone()),
        additional_parameters: over
            .additional_parameters
            .clone()
            .unwrap_or_else(|| base.additional_parameters.clone()),
    };
    let mut body = original.body.clone();
    body.parcels = vec![parcel];
    body.carrier_settings = settings;
    ShipmentRecord {
        split_from: Some(original.id.clone()),
        ..original.derive(ids::new(ids::SHIPMENT), reference, body, now)
    }
}
