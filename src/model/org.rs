//! Organizations (SPEC §2) and their rules: slug pattern, billing currencies, roles.

use poem_openapi::Object;

/// Billing currencies an organization may use.
pub const CURRENCIES: [&str; 6] = ["DKK", "EUR", "USD", "GBP", "SEK", "NOK"];
pub const DEFAULT_CURRENCY: &str = "DKK";

/// Roles of a user inside an organization.
pub const ROLES: [&str; 3] = ["owner", "admin", "member"];

/// `^[a-z0-9-]+$`
pub fn is_slug(slug: &str) -> bool {
    !slug.is_empty()
        && slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// An organization (tenant).
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Organization {
    pub id: String,
    pub name: String,
    pub slug: String,
    pub description: Option<String>,
    /// Billing currency.
    pub currency: String,
    pub vat_number: Option<String>,
    pub billing_email: Option<String>,
    pub company_name: Option<String>,
    pub address_line1: Option<String>,
    pub address_line2: Option<String>,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
    /// When true, shipments beyond the plan limit are allowed and charged as overage.
    pub overage_enabled: bool,
    /// The plan of the configuration the organization is on.
    #[oai(skip)]
    pub plan: String,
    pub created_at: String,
    pub updated_at: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_lowercase_digits_and_dashes() {
        for ok in ["acme", "acme-2", "a", "0-0"] {
            assert!(is_slug(ok), "{ok}");
        }
        for bad in [
            "",
            "Upper-Case",
            "with space",
            "under_score",
            "dot.slug",
            "ø-slug",
        ] {
            assert!(!is_slug(bad), "{bad}");
        }
    }
}
