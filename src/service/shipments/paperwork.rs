//! What booking makes besides labels, and where it prints (DESIGN §17): the customs and shop
//! documents the booking body or the shipment's rule asks for, and the print jobs of the rule's
//! printers.

use crate::{
    carriers::customs::{self, Line, ParcelInfo},
    error::{Error, Result},
    model::{
        document::{self, Document},
        ids,
        sender_address::Customs,
        shipment::ShipmentRecord,
        shipping_rule::ShippingRuleRecord,
    },
    service::printing,
    store::{self, Reader, Tx},
};

/// The document types a booking body names, checked, in the order booking makes them.
pub(crate) fn asked(documents: &[String]) -> Result<Vec<&'static str>> {
    for (i, kind) in documents.iter().enumerate() {
        if !customs::TYPES.contains(&kind.as_str()) {
            let hint = if kind == document::LABEL {
                "labels are always made; "
            } else {
                ""
            };
            return Err(Error::invalid(
                format!("documents[{i}]"),
                format!("{hint}must be one of {}", customs::TYPES.join(", ")),
            ));
        }
    }
    Ok(customs::TYPES
        .into_iter()
        .filter(|kind| documents.iter().any(|d| d == kind))
        .collect())
}

/// The document types the rule's `generate*` flags ask for.
pub(crate) fn of_rule(rule: Option<&ShippingRuleRecord>) -> Vec<&'static str> {
    let Some(rule) = rule else {
        return Vec::new();
    };
    let f = &rule.fields;
    [
        (f.generate_commercial_invoice, customs::COMMERCIAL_INVOICE),
        (f.generate_proforma_invoice, customs::PROFORMA_INVOICE),
        (f.generate_packing_list, customs::PACKING_LIST),
    ]
    .into_iter()
    .filter_map(|(wanted, kind)| wanted.then_some(kind))
    .collect()
}

/// The rule a shipment applied, if it still exists.
pub(crate) fn rule_of(
    db: &Reader,
    shipment: &ShipmentRecord,
) -> Result<Option<ShippingRuleRecord>> {
    match &shipment.shipping_rule_id {
        Some(id) => store::shipping_rules::get_rule(db, &shipment.org_id, id),
        None => Ok(None),
    }
}

/// The sender address's customs identifiers as `(EORI, value)` pairs.
pub(crate) fn customs_ids(customs: Option<&Customs>) -> Vec<(String, String)> {
    customs
        .into_iter()
        .flatten()
        .filter_map(|(name, value)| {
            let value = match value {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Null => return None,
                other => other.to_string(),
            };
            (!value.is_empty()).then(|| (name.to_uppercase(), value))
        })
        .collect()
}

/// Refuses what `render` would refuse for the shipment, so that a booking is refused before
/// the carrier is asked rather than after.
pub(crate) fn check(kinds: &[&'static str], shipment: &ShipmentRecord) -> Result<()> {
    if kinds.is_empty() {
        return Ok(());
    }
    super::parties::printed_parties(shipment, "customs documents need a sender and a receiver")?;
    let has_lines = shipment
        .body
        .parcels
        .iter()
        .any(|p| !p.order_lines.is_empty());
    if !has_lines && let Some(invoice) = kinds.iter().find(|k| **k != customs::PACKING_LIST) {
        return Err(Error::InvalidState(format!(
            "a {invoice} lists the parcels' order lines, and this shipment has none; add order lines or book without it"
        )));
    }
    Ok(())
}

/// The documents of `kinds` for a shipment whose parcels have their tracking numbers.
pub(crate) fn render(
    kinds: &[&'static str],
    shipment: &ShipmentRecord,
    carrier_name: &str,
    sender_customs: Vec<(String, String)>,
    now: &str,
) -> Result<Vec<Document>> {
    if kinds.is_empty() {
        return Ok(Vec::new());
    }
    check(kinds, shipment)?;
    let body = &shipment.body;
    let (sender, receiver) = super::parties::printed_parties(
        shipment,
        "customs documents need a sender and a receiver",
    )?;
    let lines: Vec<Line> = body
        .parcels
        .iter()
        .enumerate()
        .flat_map(|(i, parcel)| {
            parcel.order_lines.iter().map(move |l| Line {
                parcel: i + 1,
                sku: l.sku.clone(),
                description: l.description.clone().unwrap_or_default(),
                quantity: l.quantity,
                unit_price: l.unit_price,
                currency: l.currency.clone().unwrap_or_default(),
                country_of_origin: l.country_of_origin.clone().unwrap_or_default(),
                tariff_number: l.tarrif_number.clone().unwrap_or_default(),
                location: l.location.clone().unwrap_or_default(),
            })
        })
        .collect();
    let input = customs::Input {
        reference: shipment.reference.clone(),
        date: now.to_string(),
        sender,
        receiver,
        sender_customs,
        term_of_trade: shipment.term_of_trade.clone(),
        carrier: carrier_name.to_string(),
        product: body.carrier_settings.product_id.clone(),
        parcels: body
            .parcels
            .iter()
            .map(|p| ParcelInfo {
                tracking_number: p.tracking_number.clone().unwrap_or_default(),
                weight_kg: p.weight_kg(),
            })
            .collect(),
        lines,
    };
    kinds
        .iter()
        .map(|kind| {
            Ok(Document {
                id: ids::new(ids::DOCUMENT),
                org_id: shipment.org_id.clone(),
                shipment_id: shipment.id.clone(),
                document_type: (*kind).to_string(),
                format: document::PDF.into(),
                size: "A4".into(),
                content: document::content(customs::render(kind, &input)?),
                created_at: now.to_string(),
                updated_at: now.to_string(),
            })
        })
        .collect()
}

/// Queues a print job for each document the rule prints automatically: labels on its label
/// printer with `autoPrintLabels`, the other documents on its document printer with
/// `autoPrintDocuments`. Returns how many were queued.
pub(crate) fn queue_prints(
    tx: &Tx,
    rule: Option<&ShippingRuleRecord>,
    documents: &[Document],
    now: &str,
) -> Result<usize> {
    let Some(rule) = rule else {
        return Ok(0);
    };
    let f = &rule.fields;
    let mut queued = 0;
    for doc in documents {
        let printer = if doc.document_type == document::LABEL {
            f.auto_print_labels
                .then_some(f.label_printer_id.as_ref())
                .flatten()
        } else {
            f.auto_print_documents
                .then_some(f.document_printer_id.as_ref())
                .flatten()
        };
        if let Some(printer_id) = printer {
            // Documents come in parcel order; the jobs keep it.
            let position = u32::try_from(queued).unwrap_or(u32::MAX);
            printing::queue(
                tx,
                &doc.org_id,
                printer_id,
                &doc.shipment_id,
                &doc.id,
                position,
                now,
            )?;
            queued += 1;
        }
    }
    Ok(queued)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asked_documents_are_checked_and_ordered() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            asked(&names(&[
                "packing_list",
                "commercial_invoice",
                "packing_list"
            ]))
            .unwrap(),
            ["commercial_invoice", "packing_list"]
        );
        assert!(asked(&[]).unwrap().is_empty());
        let Err(Error::Validation(errors)) = asked(&names(&["packing_list", "label"])) else {
            panic!("label accepted");
        };
        assert_eq!(errors[0].field, "documents[1]");
        assert!(errors[0].message.starts_with("labels are always made"));
    }

    #[test]
    fn customs_ids_are_named_in_capitals() {
        let customs: Customs = serde_json::from_value(serde_json::json!({
            "eori": "DK12345678", "voec": 2031, "ioss": "", "duns": null
        }))
        .unwrap();
        assert_eq!(
            customs_ids(Some(&customs)),
            [
                ("EORI".to_string(), "DK12345678".to_string()),
                ("VOEC".to_string(), "2031".to_string())
            ]
        );
    }
}
