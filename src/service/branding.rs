//! An organization's branding: reading it with its defaults, changing it, and its
//! logo file for the pages that show it.

use crate::{
    error::{Error, Result},
    model::branding::{Branding, BrandingIn, Logo, Stored},
    service::{Actor, Ctx, Input, operations as ops},
    store,
};

/// The branding as customers see it: what was set, the defaults for the rest.
pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str) -> Result<Branding> {
    actor.authorize(org_id, &ops::GET_BRANDING)?;
    ctx.db.point(|db| {
        let (org_name, stored) = store::branding::get(db, org_id)?.ok_or(Error::NotFound)?;
        Ok(stored.shown(&org_name))
    })
}

/// Changes the fields the input names (DESIGN §21); `null` puts a field back to its default.
/// An SVG logo is stored as sanitized.
pub async fn update(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<BrandingIn>,
) -> Result<Branding> {
    let grant = actor.authorize(org_id, &ops::UPDATE_BRANDING)?;
    let input = input.get()?;
    // Reading a logo (an SVG parsed and written anew) is work for the blocking pool.
    let change = crate::blocking::run(move || input.check()).await?;
    let (org_id, now) = (org_id.to_string(), ctx.now());
    ctx.write(grant, move |tx| {
        let (org_name, stored) = store::branding::get(tx, &org_id)?.ok_or(Error::NotFound)?;
        let stored: Stored = stored.with(change, &now);
        store::branding::save(tx, &org_id, &stored)?;
        Ok(stored.shown(&org_name))
    })
    .await
}

/// The logo's media type and bytes, for serving the file; None when there is no logo.
pub async fn logo(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
) -> Result<Option<(&'static str, Vec<u8>)>> {
    actor.authorize(org_id, &ops::GET_BRANDING)?;
    let logo: Option<Logo> = ctx.db.point(|db| store::branding::logo(db, org_id))?;
    Ok(logo.map(|logo| (logo.logo_type.as_str(), logo.bytes)))
}
