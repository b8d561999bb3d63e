//! Returns customers book themselves in the returns portal `/r/{slug}` (DESIGN §21). A customer
//! names an order by its number and proves it is theirs with the order's e-mail or the
//! receiver's postcode; an unknown order and a wrong proof get the same answer, so the portal
//! tells no one which orders exist. They pick lines and reasons, and the return — an inbound
//! shipment linked to the order, from the customer to the portal rule's sender address with the
//! rule's carrier and product — is saved first and then booked through the one booking path
//! (which claims it, so that the carrier is asked once). A form sent twice finds the return it
//! made the first time instead of booking another.

use crate::{
    error::{Error, Result},
    model::{
        audit::{ActorKind, AuditActor},
        ids,
        order::OrderRecord,
        shipment::{
            BookIn, DEFAULT_TERM_OF_TRADE, Parcel, ParcelOrderLine, Shipment, ShipmentBody,
            ShipmentRecord,
        },
        status::ShipmentStatus,
    },
    service::{
        Ctx,
        access::grant::Grant,
        mail, operations as ops,
        shipments::{Change, booking::book_granted, require, save, sender_party},
    },
    store::{self, Reader},
};

/// Used when the picked lines carry no weight: a carrier needs one.
const DEFAULT_PARCEL_KG: f64 = 1.0;

/// An open portal.
#[derive(Clone, Debug)]
pub struct Portal {
    pub org_id: String,
    pub slug: String,
    /// The organization's name as customers see it.
    pub shop: String,
    /// The brand colour, `#rrggbb`.
    pub color: String,
    pub reasons: Vec<String>,
    rule_id: String,
}

/// The portal of the organization `slug`; None when there is no such organization or its
/// portal is closed.
pub async fn open(ctx: &Ctx, slug: &str) -> Result<Option<Portal>> {
    let slug = slug.to_string();
    ctx.db.point(move |db| {
        let Some(org) = store::orgs::by_slug(db, &slug)? else {
            return Ok(None);
        };
        let settings = store::returns_portals::get(db, &org.id)?;
        let (true, Some(rule_id)) = (settings.enabled, settings.shipping_rule_id) else {
            return Ok(None);
        };
        let look = store::branding::look(db, &org.id)?.ok_or(Error::NotFound)?;
        Ok(Some(Portal {
            org_id: org.id,
            slug,
            shop: look.display_name.unwrap_or(look.org_name),
            color: look
                .color
                .unwrap_or_else(|| crate::model::branding::DEFAULT_COLOR.into()),
            reasons: settings.reasons,
            rule_id,
        }))
    })
}

/// An order a customer proved is theirs.
#[derive(Clone, Debug)]
pub struct Found {
    pub order_id: String,
    pub order_number: String,
    /// The shippable lines, in the order's order (a pick names one by its place here).
    pub lines: Vec<Line>,
    /// Where the label is e-mailed.
    pub email: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Line {
    pub name: String,
    pub sku: String,
    pub quantity: i64,
    unit_kg: f64,
    unit_price: Option<f64>,
    currency: Option<String>,
    country_of_origin: Option<String>,
    hs_code: Option<String>,
}

/// The order numbered `number` whose e-mail or receiver's postcode is `proof`; None for an
/// unknown number, a wrong proof and a cancelled order alike.
pub async fn find(ctx: &Ctx, portal: &Portal, number: &str, proof: &str) -> Result<Option<Found>> {
    let (org_id, number, proof) = (
        portal.org_id.clone(),
        number.trim().to_string(),
        proof.to_string(),
    );
    if number.is_empty() || proof.trim().is_empty() {
        return Ok(None);
    }
    ctx.db
        .read(move |db| {
            for order in store::orders::by_number(db, &org_id, &number)? {
                if order.accepts_shipments() && proves(db, &order, &proof)? {
                    return Ok(Some(found(order)));
                }
            }
            Ok(None)
        })
        .await
}

/// Whether `proof` is the order's e-mail (in any case) or the postcode it ships to (spaces and
/// case aside), on the order or on one of its shipments.
fn proves(db: &Reader, order: &OrderRecord, proof: &str) -> Result<bool> {
    let email = |e: &str| e.trim().to_lowercase();
    let postcode = |p: &str| {
        p.chars()
            .filter(|c| !c.is_whitespace() && *c != '-')
            .collect::<String>()
            .to_uppercase()
    };
    let given = proof.trim();
    let address = order.body.shipping_address.as_ref();
    let emails = [
        order.body.customer_email.as_deref(),
        address.and_then(|a| a.email.as_deref()),
    ];
    if given.contains('@') {
        return Ok(emails.iter().flatten().any(|e| email(e) == email(given)));
    }
    let given = postcode(given);
    if given.is_empty() {
        return Ok(false);
    }
    if address
        .and_then(|a| a.postal_code.as_deref())
        .is_some_and(|p| postcode(p) == given)
    {
        return Ok(true);
    }
    Ok(store::orders::shipments(db, &order.org_id, &order.id)?
        .iter()
        .filter(|s| s.kind == "outbound")
        .flat_map(|s| s.body.parties.iter())
        .any(|p| p.kind == "receiver" && postcode(&p.postal_code) == given))
}

fn found(order: OrderRecord) -> Found {
    let address_email = order
        .body
        .shipping_address
        .as_ref()
        .and_then(|a| a.email.clone());
    Found {
        order_id: order.id.clone(),
        order_number: order.order_number.clone(),
        email: order.body.customer_email.clone().or(address_email),
        lines: order
            .body
            .order_lines
            .iter()
            .filter(|l| l.ships())
            .map(|l| Line {
                name: l.name.clone(),
                sku: l
                    .sku
                    .clone()
                    .or_else(|| l.variant_id.clone())
                    .unwrap_or_else(|| l.name.chars().take(100).collect()),
                quantity: (l.quantity.round() as i64).max(1),
                unit_kg: l.unit_kg(),
                unit_price: l.unit_price,
                currency: l.currency.clone().or_else(|| order.body.currency.clone()),
                country_of_origin: l.country_of_origin.clone(),
                hs_code: l.hs_code.clone(),
            })
            .collect(),
    }
}

/// One picked line: its place in `Found::lines`, how many go back, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Pick {
    pub line: usize,
    pub quantity: i64,
    pub reason: String,
}

/// A booked return.
#[derive(Debug)]
pub struct Booked {
    pub shipment: Shipment,
    /// The address the label was e-mailed to, when mail is configured.
    pub emailed_to: Option<String>,
}

/// Who the audit log names for the portal's changes: a customer, with their address.
fn portal_grant(portal: &Portal, operation: &'static ops::Operation, id: &str) -> Grant {
    let actor = AuditActor {
        kind: ActorKind::ReturnsPortal,
        id: None,
        user_id: None,
    };
    Grant::new(actor, &portal.org_id, operation).on(id)
}

/// Creates and books the return of `picks` (checked by the caller against `order`) as shipment
/// `id` (made with the form, so that the form sent twice finds it).
pub async fn create(
    ctx: &Ctx,
    portal: &Portal,
    order: &Found,
    picks: &[Pick],
    language: &str,
    id: &str,
) -> Result<Booked> {
    if !ids::is_valid(ids::SHIPMENT, id) {
        return Err(Error::invalid("returnId", "is not a shipment id"));
    }
    let (org_id, sid) = (portal.org_id.clone(), id.to_string());
    let existing = ctx
        .db
        .point(move |db| store::shipments::get(db, &org_id, &sid))?;
    let pending = match existing {
        // The same form again: its return, booked or (when that failed) not.
        Some(ret) if ret.order_id.as_deref() == Some(&order.order_id) && ret.kind == "inbound" => {
            ret.status == ShipmentStatus::Pending
        }
        Some(_) => return Err(Error::invalid("returnId", "names another shipment")),
        None => {
            save_return(ctx, portal, order, picks, language, id).await?;
            true
        }
    };
    let shipment = if pending {
        let grant = portal_grant(portal, &ops::BOOK_SHIPMENT, id);
        book_granted(ctx, grant, &portal.org_id, id, BookIn::default()).await?
    } else {
        let (org_id, sid) = (portal.org_id.clone(), id.to_string());
        ctx.db
            .point(move |db| crate::service::shipments::view(db, &org_id, &sid))?
    };
    let emailed_to = match (&order.email, ctx.mailer.configured(), pending) {
        (Some(to), true, true) => {
            let (record, to_address, language) =
                (shipment.shipment.clone(), to.clone(), language.to_string());
            ctx.db
                .write(move |tx| mail::queue_return_label(tx, &record, &to_address, &language))
                .await?;
            Some(to.clone())
        }
        (Some(to), true, false) => Some(to.clone()),
        _ => None,
    };
    Ok(Booked {
        shipment,
        emailed_to,
    })
}

/// Saves the return as a pending inbound shipment of the order.
async fn save_return(
    ctx: &Ctx,
    portal: &Portal,
    order: &Found,
    picks: &[Pick],
    language: &str,
    id: &str,
) -> Result<()> {
    let grant = portal_grant(portal, &ops::CREATE_RETURN_SHIPMENT, id);
    let (org_id, rule_id, order_id) = (
        portal.org_id.clone(),
        portal.rule_id.clone(),
        order.order_id.clone(),
    );
    let parcel = parcel(order, picks);
    let (id, language, now) = (id.to_string(), language.to_string(), ctx.now());
    ctx.write(grant, move |tx| {
        let rule = store::shipping_rules::get_rule(tx, &org_id, &rule_id)?.ok_or_else(|| {
            Error::InvalidState("the returns portal's shipping rule no longer exists".into())
        })?;
        let record = store::orders::get(tx, &org_id, &order_id)?.ok_or(Error::NotFound)?;
        let address = store::sender_addresses::get(tx, &org_id, &rule.fields.sender_address_id)?
            .ok_or_else(|| {
                Error::InvalidState("the portal rule's sender address no longer exists".into())
            })?;
        let mut shop = sender_party(&address);
        shop.kind = "receiver".into();
        let mut customer = record.receiver_party().ok_or_else(|| {
            Error::InvalidState("the order has no complete shipping address".into())
        })?;
        customer.kind = "sender".into();
        // The shipment that went out to the customer, when one did.
        let return_of = store::orders::shipments(tx, &org_id, &order_id)?
            .into_iter()
            .filter(|s| s.kind == "outbound" && s.status.has_left())
            .map(|s| s.id)
            .next_back();
        let ret = ShipmentRecord {
            id,
            org_id,
            reference: format!("RETURN-{}", record.order_number),
            sender_address_id: address.id.clone(),
            kind: "inbound".into(),
            status: ShipmentStatus::Pending,
            term_of_trade: DEFAULT_TERM_OF_TRADE.into(),
            order_id: Some(order_id),
            shipping_rule_id: Some(rule.id.clone()),
            return_of,
            split_from: None,
            splits_made: 0,
            body: ShipmentBody {
                parties: vec![customer, shop],
                carrier_settings: rule.carrier_settings(),
                parcels: vec![parcel],
                service_point_id: None,
                pickup_details: None,
                tracking: None,
                language: Some(language),
                tracking_url: None,
            },
            created_at: now.clone(),
            updated_at: now,
        };
        save(tx, &ret, Change::Created(None), &[])?;
        require(tx, &ret.org_id, &ret.id).map(drop)
    })
    .await
}

/// One parcel holding the picked lines, each described with its reason.
fn parcel(order: &Found, picks: &[Pick]) -> Parcel {
    let mut kg = 0.0;
    let lines = picks
        .iter()
        .filter_map(|pick| {
            let line = order.lines.get(pick.line)?;
            kg += line.unit_kg * pick.quantity as f64;
            Some(ParcelOrderLine {
                id: ids::new(ids::ORDER_LINE),
                sku: line.sku.clone(),
                quantity: pick.quantity,
                description: Some(
                    format!("{} ({})", line.name, pick.reason)
                        .chars()
                        .take(200)
                        .collect(),
                ),
                unit_price: line.unit_price,
                currency: line.currency.clone(),
                vat_percent: None,
                location: None,
                country_of_origin: line.country_of_origin.clone(),
                tarrif_number: line.hs_code.clone(),
            })
        })
        .collect();
    Parcel {
        id: ids::new(ids::PARCEL),
        weight: if kg > 0.0 { kg } else { DEFAULT_PARCEL_KG },
        weight_unit: "kg".into(),
        dimensions: None,
        order_lines: lines,
        tracking_number: None,
    }
}
