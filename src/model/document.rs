//! Documents of a shipment (SPEC §2 Document): labels as PDF.

pub const LABEL: &str = "label";
pub const PDF: &str = "pdf";

#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    pub id: String,
    pub org_id: String,
    pub shipment_id: String,
    /// `label`.
    pub document_type: String,
    /// `pdf`.
    pub format: String,
    /// `A4` or `100X150`.
    pub size: String,
    /// The file itself.
    pub content: Vec<u8>,
    pub created_at: String,
    pub updated_at: String,
}
