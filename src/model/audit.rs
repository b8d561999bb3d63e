//! The audit log of an organization (DESIGN §19): one entry per write, saying who made it, which
//! operation, on which resource, when and from which address.

use poem_openapi::Object;

crate::string_enum! {
    /// What kind of credential made a change.
    ActorKind {
        /// An API token (`id` is its `tok_` id).
        ApiToken = "api_token",
        /// An AI agent's connection (`id` is its `con_` id).
        AgentConnection = "agent_connection",
        /// A person signed in to the pages (`id` is their `usr_` id).
        User = "user",
        /// The administrator at the server's command line.
        Cli = "cli",
        /// A customer in the returns portal (no credential; the entry has their address).
        ReturnsPortal = "returns_portal",
    }
}

/// Who made a change.
#[derive(Clone, Debug, PartialEq, Eq, Object)]
#[oai(rename_all = "camelCase")]
pub struct AuditActor {
    #[oai(rename = "type")]
    pub kind: ActorKind,
    /// The credential's id (none for the command line).
    pub id: Option<String>,
    /// The person the credential acts for.
    pub user_id: Option<String>,
}

/// One change.
#[derive(Clone, Debug, PartialEq, Eq, Object)]
#[oai(rename_all = "camelCase")]
pub struct AuditEntry {
    pub id: String,
    #[oai(skip)]
    pub org_id: String,
    /// The operation, as named in the API reference and the MCP tools (`create_shipment`).
    pub operation: String,
    /// The resource it changed or made.
    pub resource_id: String,
    pub actor: AuditActor,
    /// The client's address, when the change came over the network.
    pub client_address: Option<String>,
    pub created_at: String,
}

crate::page_of!(AuditPage, AuditEntry);
