//! What booking makes besides labels, and where it prints (DESIGN §17): the customs and shop
//! documents the booking body or the shipment's rule asks for, and the print jobs of the rule's
//! printers.

use crate::{
    carriers::customs::{self, Line, ParcelInfo},
    error::{Error, Result},
    model::{
        country,
        document::{self, Document},
        ids,
        org::Organization,
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

/// Who the customs documents name as exporter (DESIGN §17): the organization, with its VAT
/// number and the sender address's customs identifiers.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Exporter {
    /// The organization's `companyName`, or its `name` when it has none.
    pub name: String,
    /// `VAT` first, then `EORI`, then the other identifiers by name; not yet filtered by
    /// destination (`for_destination`).
    pub ids: Vec<(String, String)>,
}

/// The exporter of a shipment sent by `org` from a sender address with `customs` identifiers.
pub(crate) fn exporter(org: &Organization, customs: Option<&Customs>) -> Exporter {
    let filled = |value: &Option<String>| {
        value
            .as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    let name = filled(&org.company_name).unwrap_or_else(|| org.name.clone());
    let mut ids: Vec<(String, String)> = filled(&org.vat_number)
        .map(|vat| ("VAT".to_string(), vat))
        .into_iter()
        .collect();
    let mut customs = customs_ids(customs);
    customs.sort_by(|(a, _), (b, _)| (a != "EORI", a).cmp(&(b != "EORI", b)));
    ids.extend(customs);
    Exporter { name, ids }
}

/// The identifiers that apply to a shipment into `country`: IOSS (the EU's import scheme) only
/// into the European Union, VOEC (Norway's) only into Norway; the others everywhere.
pub(crate) fn for_destination(ids: &[(String, String)], country: &str) -> Vec<(String, String)> {
    ids.iter()
        .filter(|(name, _)| match name.as_str() {
            "IOSS" => country::in_eu(country),
            "VOEC" => country.trim().eq_ignore_ascii_case("NO"),
            _ => true,
        })
        .cloned()
        .collect()
}

/// The sender address's customs identifiers as `(EORI, value)` pairs, by name.
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
    exporter: Exporter,
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
    let exporter_ids = for_destination(&exporter.ids, &receiver.country_code);
    let input = customs::Input {
        reference: shipment.reference.clone(),
        date: now.to_string(),
        exporter: exporter.name,
        sender,
        receiver,
        exporter_ids,
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

    fn org(company_name: Option<&str>, vat_number: Option<&str>) -> Organization {
        Organization {
            id: "org_1".into(),
            name: "Acme".into(),
            slug: "acme".into(),
            description: None,
            currency: "DKK".into(),
            vat_number: vat_number.map(Into::into),
            billing_email: None,
            company_name: company_name.map(Into::into),
            address_line1: None,
            address_line2: None,
            city: None,
            postal_code: None,
            country: None,
            overage_enabled: false,
            agents: Default::default(),
            plan: "default".into(),
            created_at: String::new(),
            updated_at: String::new(),
        }
    }

    fn pairs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect()
    }

    #[test]
    fn the_exporter_is_the_organization_with_its_vat_number_then_the_eori() {
        let customs: Customs = serde_json::from_value(serde_json::json!({
            "duns": "150483782", "eori": "DK12345678", "ioss": "IM2080000001", "voec": "VOEC-1"
        }))
        .unwrap();
        assert_eq!(
            exporter(
                &org(Some("Acme Trading ApS"), Some("DK11223344")),
                Some(&customs)
            ),
            Exporter {
                name: "Acme Trading ApS".into(),
                ids: pairs(&[
                    ("VAT", "DK11223344"),
                    ("EORI", "DK12345678"),
                    ("DUNS", "150483782"),
                    ("IOSS", "IM2080000001"),
                    ("VOEC", "VOEC-1"),
                ]),
            }
        );
        // No company name (or a blank one): the organization's name; no VAT number, no VAT line.
        for company_name in [None, Some(" ")] {
            assert_eq!(
                exporter(&org(company_name, Some("")), None),
                Exporter {
                    name: "Acme".into(),
                    ids: Vec::new(),
                }
            );
        }
    }

    #[test]
    fn ioss_is_for_the_eu_and_voec_for_norway_only() {
        let ids = pairs(&[
            ("VAT", "DK11223344"),
            ("EORI", "DK12345678"),
            ("IOSS", "IM2080000001"),
            ("SPRN", "S-1"),
            ("VOEC", "VOEC-1"),
        ]);
        let names = |country: &str| -> Vec<String> {
            for_destination(&ids, country)
                .into_iter()
                .map(|(name, _)| name)
                .collect()
        };
        for eu in ["DE", "FR", "GR", "EL", "SE"] {
            assert_eq!(names(eu), ["VAT", "EORI", "IOSS", "SPRN"], "{eu}");
        }
        assert_eq!(names("NO"), ["VAT", "EORI", "SPRN", "VOEC"]);
        for other in ["US", "GB", "CH", "SJ"] {
            assert_eq!(names(other), ["VAT", "EORI", "SPRN"], "{other}");
        }
    }
}
