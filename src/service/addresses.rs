//! Address checks: the postcode against its country's format, and the verdict of a
//! carrier that validates addresses in the country (UPS in the United States and Puerto Rico).

use crate::{
    carriers,
    error::{Error, Result},
    model::{
        address_check::{AddressCheckIn, AddressCheckOut, CarrierAddressCheck},
        country, postcode,
        validate::Violations,
    },
    service::{Actor, Ctx, Input, carriers::reveal, operations as ops},
    store,
};

pub async fn check(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<AddressCheckIn>,
) -> Result<AddressCheckOut> {
    actor.authorize(org_id, &ops::VALIDATE_ADDRESS)?;
    let address = input.get()?;
    let mut errors = Violations::new();
    errors.length("address1", &address.address1, 1, 200);
    errors.length("postalCode", &address.postal_code, 1, 20);
    errors.length("city", &address.city, 1, 100);
    if !country::is_alpha2(&address.country_code) {
        errors.add(
            "countryCode",
            "must be an ISO 3166-1 alpha-2 code such as DK",
        );
    }
    errors.finish()?;
    let postal_code_error = postcode::check(&address.country_code, &address.postal_code).err();
    let carrier = ctx.db.point(|db| {
        let carriers = match &address.carrier_id {
            Some(id) => {
                let carrier = store::carriers::get(db, org_id, id)?
                    .map(|view| view.carrier)
                    .ok_or_else(|| {
                        Error::invalid("carrierId", format!("no carrier {id} in this organization"))
                    })?;
                let checks = carriers::find(&carrier.fields.carrier_slug)
                    .is_some_and(|a| a.checks_addresses(&address.country_code));
                if !checks {
                    return Err(Error::InvalidState(format!(
                        "{} ({}) does not validate addresses in {}",
                        carrier.fields.name, carrier.fields.carrier_slug, address.country_code
                    )));
                }
                vec![carrier]
            }
            None => store::carriers::all(db, org_id)?,
        };
        carriers
            .into_iter()
            .find(|c| {
                carriers::find(&c.fields.carrier_slug)
                    .is_some_and(|a| a.checks_addresses(&address.country_code))
            })
            .map(|c| reveal(&ctx.vault, db, c))
            .transpose()
    })?;
    let carrier_check = match carrier {
        None => None,
        Some(carrier) => {
            let adapter = carriers::find(&carrier.fields.carrier_slug).ok_or_else(|| {
                Error::Internal("a carrier type that validated addresses went away".into())
            })?;
            let verdict = adapter
                .check_address(&ctx.carriers, &carrier, &address)
                .await?;
            Some(CarrierAddressCheck {
                carrier_id: carrier.id.clone(),
                carrier_name: carrier.fields.name.clone(),
                result: verdict.result.to_string(),
                candidates: verdict.candidates,
            })
        }
    };
    Ok(AddressCheckOut {
        valid: postal_code_error.is_none()
            && carrier_check.as_ref().is_none_or(|c| c.result == "valid"),
        postal_code_error,
        carrier_check,
    })
}
