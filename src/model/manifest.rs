//! Manifests: the end-of-day close of a carrier's booked shipments, with the
//! carrier's own close call where it has one, and the A4 list the driver signs.

use poem_openapi::{Object, types::Base64};
use serde::Deserialize;

pub const DOCUMENT_TYPE: &str = "manifest";

/// The body of an end-of-day close.
#[derive(Clone, Debug, PartialEq, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ManifestIn {
    /// The carrier whose day is closed.
    pub carrier_id: String,
    /// YYYY-MM-DD: only shipments booked that day (at their sender address). Without it,
    /// every booked shipment of the carrier not in a manifest yet, and the manifest is dated
    /// today.
    pub date: Option<String>,
}

/// The body of a manifest's print.
#[derive(Clone, Debug, PartialEq, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ManifestPrintIn {
    /// The printer (`prn_…`, one that takes PDF).
    pub printer_id: String,
}

/// A shipment the carrier left out of its close, with its words.
#[derive(Clone, Debug, PartialEq, Object, serde::Serialize, Deserialize)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct RefusedShipment {
    pub shipment_id: String,
    pub tracking_number: Option<String>,
    pub message: String,
}

/// The manifest's PDF (`documentType` `manifest`, A4).
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct ManifestDocument {
    pub id: String,
    /// `manifest`.
    pub document_type: String,
    /// `pdf`.
    pub format: String,
    /// `A4`.
    pub size: String,
    /// The file itself.
    pub content: Base64<Vec<u8>>,
    pub created_at: String,
    pub updated_at: String,
}

/// One end-of-day close of a carrier.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Manifest {
    pub id: String,
    pub carrier_id: String,
    /// YYYY-MM-DD.
    pub date: String,
    /// The shipments closed, in booking order (not those the carrier refused: they stay open
    /// for the next close, and the PDF lists them marked "not closed").
    pub shipment_ids: Vec<String>,
    pub shipment_count: u32,
    pub parcel_count: u32,
    /// Kilograms, the parcels' weights added.
    pub total_weight: f64,
    /// The carrier's reference for its close, when it has a close call and gave one.
    pub carrier_reference: Option<String>,
    /// Whether the carrier's own close call was made (carriers without one: false).
    pub carrier_closed: bool,
    pub refused: Vec<RefusedShipment>,
    pub document: ManifestDocument,
    pub created_at: String,
    #[oai(skip)]
    pub org_id: String,
}

crate::page_of!(ManifestPage, Manifest);

/// The manifest document's `content` from its bytes.
pub fn content(bytes: Vec<u8>) -> Base64<Vec<u8>> {
    Base64(bytes)
}
