//! Documents of a shipment (SPEC §2 Document): labels as PDF or ZPL II.

use poem_openapi::{Object, types::Base64};

pub const LABEL: &str = "label";
pub const PDF: &str = "pdf";
pub const ZPL: &str = "zpl";

/// A file as a document carries it: its bytes, base64 on the wire.
pub fn content(bytes: Vec<u8>) -> Base64<Vec<u8>> {
    Base64(bytes)
}

/// A document of a shipment; `content` is the file, base64-encoded.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Document {
    pub id: String,
    #[oai(skip)]
    pub org_id: String,
    pub shipment_id: String,
    /// `label`.
    pub document_type: String,
    /// `pdf` or `zpl`.
    pub format: String,
    /// `A4` or `100X150`.
    pub size: String,
    /// The file itself.
    pub content: Base64<Vec<u8>>,
    pub created_at: String,
    pub updated_at: String,
}
