//! The batch print request: documents of several shipments as one PDF (DESIGN §17).

use poem_openapi::Object;
use serde::Deserialize;

use crate::{
    error::Result,
    model::{document, validate::Violations},
};

/// Shipments whose documents of one type go into one PDF, in the order given.
#[derive(Clone, Debug, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct DocumentMergeIn {
    /// 1 to 100 shipment ids of the organization.
    pub shipment_ids: Vec<String>,
    /// `label`, `commercial_invoice`, `proforma_invoice` or `packing_list`.
    pub document_type: String,
}

/// Document types a shipment can have.
pub const DOCUMENT_TYPES: [&str; 4] = [
    document::LABEL,
    "commercial_invoice",
    "proforma_invoice",
    "packing_list",
];

/// Most shipments one merge takes.
pub const MAX_SHIPMENTS: usize = 100;

impl DocumentMergeIn {
    pub fn validate(&self) -> Result<()> {
        let mut errors = Violations::new();
        if self.shipment_ids.is_empty() || self.shipment_ids.len() > MAX_SHIPMENTS {
            errors.add(
                "shipmentIds",
                format!("must hold 1 to {MAX_SHIPMENTS} shipment ids"),
            );
        }
        if !DOCUMENT_TYPES.contains(&self.document_type.as_str()) {
            errors.add(
                "documentType",
                format!("must be one of {}", DOCUMENT_TYPES.join(", ")),
            );
        }
        errors.finish()
    }
}
