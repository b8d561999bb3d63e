//! Members of an organization, their roles and brands.

use poem_openapi::{Object, types::MaybeUndefined};
use serde::Deserialize;

use crate::model::role::Role;

/// A person's membership of an organization.
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

/// A person to add.
#[derive(Debug, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct MemberIn {
    /// Their e-mail; a person who has no account yet gets one (set a password with
    /// `shipbase user set-password`).
    pub email: String,
    /// Their name, used when they have no account yet.
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: String,
    pub role: Role,
    /// Limits a member to the shipments and orders of one brand.
    pub brand: Option<String>,
}

/// What to change of a member; absent fields stay, a `null` brand lifts the limit.
#[derive(Debug, Deserialize, Object, Default)]
#[serde(rename_all = "camelCase", default)]
#[oai(rename_all = "camelCase")]
pub struct MemberPatchIn {
    pub role: Option<Role>,
    pub brand: MaybeUndefined<String>,
}

/// A user's place in one organization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Membership {
    pub org_id: String,
    pub org_name: String,
    pub role: String,
    /// Set when the member is limited to one brand.
    pub brand: Option<String>,
}
