//! Members of an organization (DESIGN §19).

use poem_openapi::Object;

/// A person's membership of an organization (DESIGN §19).
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Member {
    /// The person's user id (`usr_…`), the same in every organization they belong to.
    pub id: String,
    pub email: String,
    pub name: String,
    pub role: crate::model::role::Role,
    /// Set when the member sees only shipments and orders of this brand; such members cannot
    /// connect AI agents nor make API tokens.
    pub brand: Option<String>,
    /// When they joined the organization.
    pub created_at: String,
}

crate::page_of!(MemberPage, Member);
