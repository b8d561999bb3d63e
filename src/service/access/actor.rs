//! Who is calling: an API token of one organization, an agent's connection, a user signed in
//! to the pages, the local administrator (CLI), or nobody — with the scopes the credential holds
//! under its holder's role (DESIGN §19).

use crate::{
    error::{Error, Result},
    model::{
        audit::{ActorKind, AuditActor},
        role::Role,
        scope::ScopeSet,
    },
    service::{
        access::{grant::Grant, rate_limit::Quota},
        operations::Operation,
    },
};

#[derive(Clone, Debug)]
pub enum Principal {
    /// The local administrator running the CLI on the server's data directory.
    Admin,
    /// An API token of one organization.
    ApiToken { token_id: String, org_id: String },
    /// An agent's OAuth access token: a user's connection to one organization.
    Connection {
        connection_id: String,
        org_id: String,
        user_id: String,
    },
    /// A user signed in to the pages (their own sign-in and agent connections, no organization
    /// operations).
    User { user_id: String },
    /// A user signed in to the pages, working in one of their organizations (the workbench at
    /// `/app`): the role's scopes, nothing more.
    Session { user_id: String, org_id: String },
    /// No credential.
    Anonymous,
}

#[derive(Clone, Debug)]
pub struct Actor {
    pub principal: Principal,
    /// What the credential may do: its own scopes within its holder's role cap.
    pub scopes: ScopeSet,
    /// The user the credential acts for (an API token's creator).
    pub user_id: Option<String>,
    /// That user's role in the credential's organization.
    pub role: Option<Role>,
    /// Instance staff: only a web session or a CLI-made token of a staff user carries it,
    /// never an agent connection nor a token an agent made (DESIGN §4, §19).
    pub staff: bool,
    /// The agent connection the credential came from (itself, or the one that made the API
    /// token): what it makes dies with that connection.
    pub via_connection: Option<String>,
    /// Where the credential stands with the rate limit after this request.
    pub quota: Option<Quota>,
}

impl Actor {
    pub fn admin() -> Actor {
        Actor {
            principal: Principal::Admin,
            scopes: ScopeSet::everything(),
            user_id: None,
            role: Some(Role::Owner),
            staff: true,
            via_connection: None,
            quota: None,
        }
    }

    pub fn anonymous() -> Actor {
        Actor {
            principal: Principal::Anonymous,
            scopes: ScopeSet::default(),
            user_id: None,
            role: None,
            staff: false,
            via_connection: None,
            quota: None,
        }
    }

    pub fn is_admin(&self) -> bool {
        matches!(self.principal, Principal::Admin)
    }

    /// The one gate of every org-scoped operation: a credential of another organization gets
    /// 404 (as if nothing were there), a missing scope 403 naming the operation's scope. The
    /// Who the audit log says acted.
    pub(crate) fn audit_actor(&self) -> AuditActor {
        let (kind, id) = match &self.principal {
            Principal::ApiToken { token_id, .. } => (ActorKind::ApiToken, Some(token_id.clone())),
            Principal::Connection { connection_id, .. } => {
                (ActorKind::AgentConnection, Some(connection_id.clone()))
            }
            Principal::User { user_id } | Principal::Session { user_id, .. } => {
                (ActorKind::User, Some(user_id.clone()))
            }
            Principal::Admin | Principal::Anonymous => (ActorKind::Cli, None),
        };
        AuditActor {
            kind,
            id,
            user_id: self.user_id.clone(),
        }
    }

    /// leave it answers is what a write needs to carry the operation out (and audit it).
    pub fn authorize<'a>(
        &'a self,
        org_id: &'a str,
        operation: &'static Operation,
    ) -> Result<Authorized<'a>> {
        let scope = operation.scope;
        match &self.principal {
            Principal::Admin => {}
            Principal::Anonymous => return Err(Error::Unauthenticated),
            Principal::User { .. } => return Err(Error::NotFound),
            Principal::ApiToken { org_id: own, .. }
            | Principal::Connection { org_id: own, .. }
            | Principal::Session { org_id: own, .. }
                if own != org_id =>
            {
                return Err(Error::NotFound);
            }
            _ if !self.scopes.grants(scope) => {
                return Err(Error::InsufficientScope(scope.to_string()));
            }
            _ => {}
        }
        Ok(Authorized::new(self, org_id, operation))
    }

    /// The caller's role in the organization it acts in (the administrator counts as an owner).
    pub fn role(&self) -> Result<Role> {
        self.role
            .ok_or_else(|| Error::Forbidden("this needs a member of the organization".into()))
    }

    /// The user signed in to the pages; any other actor is unauthenticated there.
    pub fn signed_in_user(&self) -> Result<&str> {
        match &self.principal {
            Principal::User { user_id } | Principal::Session { user_id, .. } => Ok(user_id),
            _ => Err(Error::Unauthenticated),
        }
    }

    /// A user signed in to the pages.
    pub fn user(user_id: String) -> Actor {
        Actor {
            principal: Principal::User {
                user_id: user_id.clone(),
            },
            scopes: ScopeSet::default(),
            user_id: Some(user_id),
            role: None,
            staff: false,
            via_connection: None,
            quota: None,
        }
    }

    /// `user` working in the pages in an organization where their role is `role`: the role's
    /// scopes (DESIGN §19: a web session is capped by its holder's role).
    pub fn session(user_id: String, org_id: String, role: Role, staff: bool) -> Actor {
        Actor {
            principal: Principal::Session {
                user_id: user_id.clone(),
                org_id,
            },
            scopes: role.cap(),
            user_id: Some(user_id),
            role: Some(role),
            staff,
            via_connection: None,
            quota: None,
        }
    }

    /// The key rate limits are counted under, and idempotency keys belong to: the credential.
    pub fn credential_id(&self) -> Option<&str> {
        match &self.principal {
            Principal::ApiToken { token_id, .. } => Some(token_id),
            Principal::Connection { connection_id, .. } => Some(connection_id),
            Principal::Admin => Some("admin"),
            Principal::User { .. } | Principal::Session { .. } | Principal::Anonymous => None,
        }
    }
}

/// What `Actor::authorize` answers: leave to carry out `operation` in `org_id`, borrowed (a read
/// drops it, having allocated nothing).
#[derive(Clone, Copy, Debug)]
pub struct Authorized<'a> {
    actor: &'a Actor,
    org_id: &'a str,
    pub operation: &'static Operation,
}

impl<'a> Authorized<'a> {
    pub(crate) fn new(
        actor: &'a Actor,
        org_id: &'a str,
        operation: &'static Operation,
    ) -> Authorized<'a> {
        Authorized {
            actor,
            org_id,
            operation,
        }
    }

    /// The grant for a change of (or making) the resource `id`.
    pub fn on(self, id: impl Into<String>) -> Grant {
        Grant::from(self).on(id)
    }
}

impl From<Authorized<'_>> for Grant {
    fn from(authorized: Authorized<'_>) -> Grant {
        Grant::new(
            authorized.actor.audit_actor(),
            authorized.org_id,
            authorized.operation,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::operations::{
        CREATE_SHIPMENT, GET_ORGANIZATION, GET_SHIPMENT, UPDATE_ORGANIZATION,
    };

    fn token(org: &str, scopes: &str) -> Actor {
        Actor {
            principal: Principal::ApiToken {
                token_id: "tok_1".into(),
                org_id: org.into(),
            },
            scopes: ScopeSet::parse(scopes).unwrap_or_default(),
            user_id: None,
            role: Some(Role::Owner),
            staff: false,
            via_connection: None,
            quota: None,
        }
    }

    #[test]
    fn another_orgs_credential_is_not_found_before_scopes_are_looked_at() {
        let actor = token("org_a", "read:shipments");
        assert!(matches!(
            actor.authorize("org_b", &UPDATE_ORGANIZATION),
            Err(Error::NotFound)
        ));
    }

    #[test]
    fn a_missing_scope_is_insufficient_scope_naming_it() {
        let actor = token("org_a", "read:shipments");
        assert!(actor.authorize("org_a", &GET_SHIPMENT).is_ok());
        match actor.authorize("org_a", &CREATE_SHIPMENT) {
            Err(Error::InsufficientScope(s)) => assert_eq!(s, "write:shipments"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn nobody_is_unauthenticated_and_the_admin_passes() {
        assert!(matches!(
            Actor::anonymous().authorize("org_a", &GET_ORGANIZATION),
            Err(Error::Unauthenticated)
        ));
        assert!(Actor::admin().authorize("org_a", &GET_ORGANIZATION).is_ok());
    }
}
