//! The public tracking page of a booked shipment (DESIGN §21): booking gives the shipment a
//! random token and its `trackingUrl` `{base_url}/t/{token}`; the page, found by the token alone,
//! shows the organization's branding, where the parcel stands with its timeline, the carrier and
//! its tracking number with the carrier's link, and of the receiver only the city and country.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use ring::rand::{SecureRandom, SystemRandom};

use crate::{
    error::{Error, Result},
    model::{
        branding::DEFAULT_COLOR,
        shipment::{ShipmentRecord, TrackingEvent},
        status::ShipmentStatus,
    },
    service::Ctx,
    store::{self, Tx},
};

/// The page a booking is about to give a shipment.
pub(crate) struct Link {
    token: String,
}

impl Link {
    /// A new page for `shipment` unless it has one (a shipment booked again keeps its page): its
    /// `trackingUrl` is set; `record` writes the token once the shipment is saved.
    pub(crate) fn give(base_url: &str, shipment: &mut ShipmentRecord) -> Result<Option<Link>> {
        if shipment.body.tracking_url.is_some() {
            return Ok(None);
        }
        let mut bytes = [0u8; 16];
        SystemRandom::new()
            .fill(&mut bytes)
            .map_err(|_| Error::Internal("no randomness available".into()))?;
        let token = URL_SAFE_NO_PAD.encode(bytes);
        shipment.body.tracking_url = Some(format!("{base_url}/t/{token}"));
        Ok(Some(Link { token }))
    }

    pub(crate) fn record(self, tx: &Tx, shipment: &ShipmentRecord, now: &str) -> Result<()> {
        store::tracking_links::insert(tx, &self.token, &shipment.org_id, &shipment.id, now)
    }
}

/// What the page shows.
#[derive(Debug)]
pub struct Page {
    /// The name customers see.
    pub shop: String,
    /// The brand colour, `#rrggbb`.
    pub color: String,
    /// The catalogue key of where the parcel stands (`status_in_transit`, …).
    pub status: String,
    pub carrier: Option<String>,
    pub tracking_number: Option<String>,
    /// The carrier's own tracking page.
    pub carrier_url: Option<String>,
    /// Newest first.
    pub events: Vec<TrackingEvent>,
    pub city: String,
    pub country: String,
    /// The shipment's language, when set.
    pub language: Option<String>,
    /// When the logo last changed (for its address), when there is one.
    pub logo_version: Option<String>,
}

/// The page of `token`; None for a token that names no shipment (never made, or its shipment
/// deleted).
pub async fn find(ctx: &Ctx, token: &str) -> Result<Option<Page>> {
    if !plausible(token) {
        return Ok(None);
    }
    let token = token.to_string();
    ctx.db.point(move |db| {
        let Some((org_id, shipment_id)) = store::tracking_links::find(db, &token)? else {
            return Ok(None);
        };
        let Some(shipment) = store::shipments::get(db, &org_id, &shipment_id)? else {
            return Ok(None);
        };
        let look = store::branding::look(db, &org_id)?.ok_or(Error::NotFound)?;
        let logo_version = look
            .has_logo
            .then(|| look.updated_at.clone().unwrap_or_default());
        let carrier =
            store::carriers::get(db, &org_id, &shipment.body.carrier_settings.carrier_id)?
                .map(|c| c.carrier.fields.name);
        let receiver = shipment.body.parties.iter().find(|p| p.kind == "receiver");
        let tracking = shipment.body.tracking.clone().unwrap_or_default();
        Ok(Some(Page {
            shop: look.display_name.unwrap_or(look.org_name),
            color: look.color.unwrap_or_else(|| DEFAULT_COLOR.to_string()),
            status: status_key(&shipment),
            carrier,
            tracking_number: tracking.number,
            carrier_url: tracking.url,
            events: tracking.events,
            city: receiver.map(|r| r.city.clone()).unwrap_or_default(),
            country: receiver.map(|r| r.country_code.clone()).unwrap_or_default(),
            language: shipment.body.language.clone(),
            logo_version,
        }))
    })
}

/// The brand colour of the page `token` names (the default one for any other token).
pub async fn color(ctx: &Ctx, token: &str) -> Result<String> {
    let token = token.to_string();
    let color = ctx.db.point(move |db| {
        if !plausible(&token) {
            return Ok(None);
        }
        let Some((org_id, _)) = store::tracking_links::find(db, &token)? else {
            return Ok(None);
        };
        Ok(store::branding::look(db, &org_id)?.and_then(|look| look.color))
    })?;
    Ok(color.unwrap_or_else(|| DEFAULT_COLOR.to_string()))
}

/// The PDF label of the return whose tracking page is `token`, when it is a return of
/// `org_id`: a file name and the bytes.
pub async fn return_label(
    ctx: &Ctx,
    org_id: &str,
    token: &str,
) -> Result<Option<(String, Vec<u8>)>> {
    let (org_id, token) = (org_id.to_string(), token.to_string());
    ctx.db.point(move |db| {
        if !plausible(&token) {
            return Ok(None);
        }
        let Some((owner, shipment_id)) = store::tracking_links::find(db, &token)? else {
            return Ok(None);
        };
        if owner != org_id {
            return Ok(None);
        }
        let Some(shipment) = store::shipments::get(db, &org_id, &shipment_id)? else {
            return Ok(None);
        };
        if shipment.kind != "inbound" {
            return Ok(None);
        }
        Ok(store::documents::of_shipment(db, &org_id, &shipment_id)?
            .into_iter()
            .find(|d| d.document_type == "label" && d.format == "pdf")
            .map(|d| (format!("{}.pdf", shipment.reference), d.content.0)))
    })
}

/// The logo of the organization whose page `token` is: its media type and bytes.
pub async fn logo(ctx: &Ctx, token: &str) -> Result<Option<(&'static str, Vec<u8>)>> {
    if !plausible(token) {
        return Ok(None);
    }
    let token = token.to_string();
    ctx.db.point(move |db| {
        let Some((org_id, _)) = store::tracking_links::find(db, &token)? else {
            return Ok(None);
        };
        Ok(store::branding::logo(db, &org_id)?.map(|logo| (logo.logo_type.as_str(), logo.bytes)))
    })
}

/// Whether `token` can be one of ours (22 base64url characters); anything else is not looked up.
fn plausible(token: &str) -> bool {
    token.len() == 22
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Where the parcel stands, as a catalogue key: the carrier's latest word, else what the
/// shipment's own status says.
fn status_key(shipment: &ShipmentRecord) -> String {
    if let Some(status) = shipment.body.tracking.as_ref().and_then(|t| t.status) {
        return format!("status_{}", status.as_str());
    }
    match shipment.status {
        ShipmentStatus::Cancelled => "status_cancelled",
        ShipmentStatus::Dispatched | ShipmentStatus::PartlyDispatched => "status_in_transit",
        _ => "status_booked",
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_token_shaped_strings_are_looked_up() {
        assert!(plausible("AAAAAAAAAAAAAAAAAAAAAA"));
        assert!(plausible("abc-_0123456789ABCDEFGH"[..22].as_ref()));
        assert!(!plausible("short"));
        assert!(!plausible("AAAAAAAAAAAAAAAAAAAA.."));
        assert!(!plausible("shp_01JXXXXXXXXXXXXXXXXXXXXXXX"));
    }
}
