//! The authorization endpoint's decisions (SPEC §5, DESIGN §12): which requests may reach the
//! consent page, which organizations and permissions it offers, and what Authorize or Deny
//! sends back to the client. The request travels from the page to its form sealed by the vault,
//! so nothing is stored until the user decides.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use url::Url;

use crate::{
    error::{Error, Result},
    model::{
        oauth::CodeGrant,
        role::Role,
        scope::{Access, Resource, Scope, ScopeSet},
        time,
    },
    service::{
        Actor, Ctx,
        oauth::{self, clients},
    },
    store,
};

pub use crate::model::member::Membership;

/// How long the consent page may stay open before its form is refused.
const REQUEST_MINUTES: i64 = 30;
/// How long an authorization code lives.
const CODE_SECONDS: i64 = 60;

/// A request that may be shown on the consent page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    pub client_id: String,
    pub client_name: String,
    pub redirect_uri: String,
    pub state: Option<String>,
    pub code_challenge: String,
    pub resource: String,
    /// What the client asked for: the requested permissions, per resource.
    pub offered: Vec<String>,
    /// Where the client's details came from, for a client described by a metadata document.
    #[serde(default)]
    pub document_host: Option<String>,
    /// Set when sealed for a user's form.
    #[serde(default)]
    user_id: String,
    #[serde(default)]
    expires: i64,
}

impl Pending {
    /// Where the client sends the user back to (host and port, or the app's scheme), shown on
    /// the page.
    pub fn redirect_host(&self) -> String {
        match Url::parse(&self.redirect_uri) {
            Ok(url) => match (url.host_str(), url.port()) {
                (Some(host), Some(port)) => format!("{host}:{port}"),
                (Some(host), None) => host.to_string(),
                (None, _) => format!("{}:", url.scheme()),
            },
            Err(_) => self.redirect_uri.clone(),
        }
    }
}

/// Why a request does not reach the consent page.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The client is described by a metadata document, which is fetched only for a signed-in
    /// user: sign in first.
    SignInFirst,
    /// The client or its redirect URI cannot be trusted with a redirect: an error page.
    Page(String),
    /// Sent back to the client with `error` (and `state`, `iss`).
    Redirect(String),
}

/// Checks a `GET /oauth/authorize` query (RFC 6749 §4.1.1 with PKCE S256 and RFC 8707), for a
/// user who is `signed_in` or not.
pub async fn check(
    ctx: &Ctx,
    params: &BTreeMap<String, String>,
    signed_in: bool,
) -> Result<std::result::Result<Pending, Refusal>> {
    let get = |name: &str| {
        params
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    };
    let Some(client_id) = get("client_id") else {
        return Ok(Err(Refusal::Page("the request names no client_id".into())));
    };
    let client = match clients::resolve(ctx, client_id, signed_in).await? {
        Ok(Some(client)) => client,
        Ok(None) => return Ok(Err(Refusal::SignInFirst)),
        Err(why) => return Ok(Err(Refusal::Page(why))),
    };
    let document_host = clients::is_metadata_url(ctx, &client.id)
        .then(|| Url::parse(&client.id).ok()?.host_str().map(str::to_string))
        .flatten();
    let redirect_uri = match (get("redirect_uri"), client.redirect_uris.as_slice()) {
        (Some(uri), _) if clients::allows_redirect(&client, uri) => uri.to_string(),
        (Some(uri), _) => {
            return Ok(Err(Refusal::Page(format!(
                "{uri} is not a redirect URI of {}",
                client.name
            ))));
        }
        (None, [only]) => only.clone(),
        (None, _) => {
            return Ok(Err(Refusal::Page(
                "the request names no redirect_uri, and the app has several".into(),
            )));
        }
    };
    let state = get("state").map(str::to_string);
    let back = |error: &str, description: &str| {
        Ok(Err(Refusal::Redirect(error_redirect(
            ctx,
            &redirect_uri,
            state.as_deref(),
            error,
            description,
        ))))
    };
    if get("response_type") != Some("code") {
        return back("unsupported_response_type", "response_type must be code");
    }
    if get("code_challenge_method") != Some("S256") {
        return back(
            "invalid_request",
            "PKCE with code_challenge_method=S256 is required",
        );
    }
    let challenge = get("code_challenge").unwrap_or_default();
    if challenge.len() != 43 || !challenge.bytes().all(is_base64url) {
        return back(
            "invalid_request",
            "code_challenge must be the base64url SHA-256 of the code verifier (43 characters)",
        );
    }
    let offered = match offered_scopes(get("scope")) {
        Ok(offered) => offered,
        Err(unknown) => return back("invalid_scope", &format!("unknown scope {unknown}")),
    };
    let resource = match get("resource") {
        None => oauth::issuer(ctx),
        Some(resource) if oauth::resources(ctx).iter().any(|r| r == resource) => {
            resource.to_string()
        }
        Some(_) => {
            return back(
                "invalid_target",
                &format!("resource must be {}", oauth::resources(ctx).join(" or ")),
            );
        }
    };
    Ok(Ok(Pending {
        client_id: client.id,
        client_name: shown_name(&client.name),
        redirect_uri,
        state,
        code_challenge: challenge.to_string(),
        resource,
        offered: offered.iter().map(Scope::to_string).collect(),
        document_host,
        user_id: String::new(),
        expires: 0,
    }))
}

/// The permissions offered for a requested `scope`: each named one, `all` spelled out per
/// resource, and read and write on everything when nothing specific is asked for. Clients'
/// `offline_access` is ignored (refresh tokens are always issued).
fn offered_scopes(requested: Option<&str>) -> std::result::Result<Vec<Scope>, String> {
    let mut offered = Vec::new();
    for item in requested.unwrap_or_default().split_whitespace() {
        if item == "offline_access" {
            continue;
        }
        let scope = Scope::parse(item).ok_or_else(|| item.to_string())?;
        match scope.resource {
            Some(_) => offered.push(scope),
            None => offered.extend(Resource::ALL.into_iter().flat_map(|r| match scope.access {
                Access::Read => vec![Scope::read(r)],
                Access::Write => vec![Scope::read(r), Scope::write(r)],
            })),
        }
    }
    if offered.is_empty() {
        offered = Resource::ALL
            .into_iter()
            .flat_map(|r| [Scope::read(r), Scope::write(r)])
            .collect();
    }
    offered.sort();
    offered.dedup();
    Ok(offered)
}

/// What the consent page offers the user: the permissions the client asked for that the user's
/// role allows in at least one of `orgs` (DESIGN §19: a person hands on no more than their
/// role holds).
pub fn offerable(pending: &Pending, orgs: &[Membership]) -> Vec<String> {
    let caps: Vec<ScopeSet> = orgs
        .iter()
        .filter_map(|m| Role::parse(&m.role))
        .map(Role::cap)
        .collect();
    pending
        .offered
        .iter()
        .filter(|scope| {
            Scope::parse(scope).is_some_and(|scope| caps.iter().any(|cap| cap.grants(scope)))
        })
        .cloned()
        .collect()
}

/// The organizations the signed-in user may connect an agent to: those where they are not
/// limited to one brand. `Err` explains why there are none.
pub async fn organizations(
    ctx: &Ctx,
    actor: &Actor,
) -> Result<std::result::Result<Vec<Membership>, String>> {
    let user_id = actor.signed_in_user()?.to_string();
    let memberships = ctx
        .db
        .read(move |db| store::users::memberships(db, &user_id))
        .await?;
    let (open, limited): (Vec<_>, Vec<_>) =
        memberships.into_iter().partition(|m| m.brand.is_none());
    Ok(match (open.is_empty(), limited.first()) {
        (false, _) => Ok(open),
        (true, Some(m)) => Err(format!(
            "Your membership of {} is limited to the brand {}, and members limited to one brand cannot connect AI agents. Ask an owner of the organization for full access.",
            m.org_name,
            m.brand.as_deref().unwrap_or_default()
        )),
        (true, None) => Err("You are not a member of any organization yet.".into()),
    })
}

/// Seals `pending` for the signed-in user's consent form.
pub fn seal(ctx: &Ctx, actor: &Actor, mut pending: Pending) -> Result<String> {
    pending.user_id = actor.signed_in_user()?.to_string();
    pending.expires =
        (ctx.clock.now() + ::time::Duration::minutes(REQUEST_MINUTES)).unix_timestamp();
    let json = serde_json::to_string(&pending)
        .map_err(|e| Error::internal(format!("a consent request as JSON: {e}")))?;
    ctx.vault.seal(&json)
}

/// The request a consent form carries, when it is this user's and still fresh.
pub fn open(ctx: &Ctx, actor: &Actor, sealed: &str) -> std::result::Result<Pending, String> {
    let stale = || {
        "This authorization request has expired or is not yours. Start again from your app."
            .to_string()
    };
    let pending: Pending = ctx
        .vault
        .open_sealed(sealed)
        .ok()
        .and_then(|json| serde_json::from_str(&json).ok())
        .ok_or_else(stale)?;
    let user = actor.signed_in_user().map_err(|_| stale())?;
    if pending.user_id != user || pending.expires < ctx.clock.now().unix_timestamp() {
        return Err(stale());
    }
    Ok(pending)
}

/// What the user chose on the consent page.
#[derive(Debug)]
pub struct Choice {
    pub allow: bool,
    pub org_id: String,
    pub scopes: Vec<String>,
}

/// Where the browser goes after the user decided on `pending`, or what to show on the page
/// again (`Err`): no permission ticked, a permission the app did not ask for, or an
/// organization the user may not connect.
pub async fn decide(
    ctx: &Ctx,
    actor: &Actor,
    pending: &Pending,
    choice: Choice,
) -> Result<std::result::Result<String, String>> {
    let state = pending.state.as_deref();
    if !choice.allow {
        return Ok(Ok(error_redirect(
            ctx,
            &pending.redirect_uri,
            state,
            "access_denied",
            "the user denied access",
        )));
    }
    if choice.scopes.is_empty() {
        return Ok(Err("Tick at least one permission, or choose Deny.".into()));
    }
    if let Some(extra) = choice.scopes.iter().find(|s| !pending.offered.contains(s)) {
        return Ok(Err(format!(
            "{} did not ask for the permission {extra}; it cannot be granted here.",
            pending.client_name
        )));
    }
    let allowed = match organizations(ctx, actor).await? {
        Ok(orgs) => orgs,
        Err(why) => return Ok(Err(why)),
    };
    let Some(membership) = allowed.iter().find(|m| m.org_id == choice.org_id) else {
        return Ok(Err("Choose one of your organizations.".into()));
    };
    let scopes = ScopeSet::parse_all(choice.scopes.iter().map(String::as_str))
        .map_err(|_| Error::internal("an offered scope does not parse"))?;
    let role = Role::parse(&membership.role).unwrap_or(Role::Member);
    let beyond: Vec<Scope> = scopes.iter().filter(|s| !role.cap().grants(*s)).collect();
    if !beyond.is_empty() {
        let names: Vec<String> = beyond.iter().map(Scope::to_string).collect();
        return Ok(Err(format!(
            "As {} of {} you cannot grant {}. Untick {}, or choose another organization.",
            article(role),
            membership.org_name,
            names.join(", "),
            if names.len() == 1 { "it" } else { "them" }
        )));
    }
    let code = oauth::new_secret()?;
    let grant = CodeGrant {
        client_id: pending.client_id.clone(),
        client_name: pending.client_name.clone(),
        user_id: actor.signed_in_user()?.to_string(),
        org_id: choice.org_id,
        redirect_uri: pending.redirect_uri.clone(),
        scopes: scopes.to_string(),
        code_challenge: pending.code_challenge.clone(),
        resource: pending.resource.clone(),
        expires_at: time::format(ctx.clock.now() + ::time::Duration::seconds(CODE_SECONDS)),
        connection_id: None,
    };
    let hash = oauth::hash(&code);
    ctx.db
        .write(move |tx| store::oauth::insert_code(tx, &hash, &grant))
        .await?;
    let mut params = vec![("code", code.as_str())];
    params.extend(state.map(|s| ("state", s)));
    Ok(Ok(redirect(ctx, &pending.redirect_uri, &params)))
}

/// A client's name as the consent page and Apps & integrations show it: at most 200 characters
/// (a registration may hold 2,000).
fn shown_name(name: &str) -> String {
    const SHOWN: usize = 200;
    if name.chars().count() <= SHOWN {
        return name.to_string();
    }
    let mut shown: String = name.chars().take(SHOWN - 1).collect();
    shown.push('…');
    shown
}

fn article(role: Role) -> &'static str {
    match role {
        Role::Owner => "an owner",
        Role::Admin => "an admin",
        Role::Member => "a member",
    }
}

/// The client's redirect URI with `error` (RFC 6749 §4.1.2.1), `state` and `iss`.
pub fn error_redirect(
    ctx: &Ctx,
    redirect_uri: &str,
    state: Option<&str>,
    error: &str,
    description: &str,
) -> String {
    let mut params = vec![("error", error), ("error_description", description)];
    params.extend(state.map(|s| ("state", s)));
    redirect(ctx, redirect_uri, &params)
}

/// `redirect_uri` with `params` and the issuer (RFC 9207) added to its query.
fn redirect(ctx: &Ctx, redirect_uri: &str, params: &[(&str, &str)]) -> String {
    let issuer = oauth::issuer(ctx);
    match Url::parse(redirect_uri) {
        Ok(mut url) => {
            url.query_pairs_mut()
                .extend_pairs(params)
                .append_pair("iss", &issuer);
            url.to_string()
        }
        Err(_) => redirect_uri.to_string(),
    }
}

fn is_base64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(scopes: Vec<Scope>) -> Vec<String> {
        scopes.iter().map(Scope::to_string).collect()
    }

    #[test]
    fn long_client_names_are_shown_cut() {
        assert_eq!(shown_name("Agent"), "Agent");
        let long = shown_name(&"x".repeat(2000));
        assert_eq!(long.chars().count(), 200);
        assert!(long.ends_with('…'));
    }

    #[test]
    fn nothing_requested_offers_read_and_write_on_everything() {
        let all = offered_scopes(None).unwrap_or_default();
        assert_eq!(all.len(), 2 * Resource::ALL.len());
        assert_eq!(offered_scopes(Some("offline_access")), Ok(all));
    }

    #[test]
    fn all_scopes_are_spelled_out_per_resource() {
        let reads = names(offered_scopes(Some("read:all")).unwrap_or_default());
        assert_eq!(reads.len(), Resource::ALL.len());
        assert!(reads.iter().all(|s| s.starts_with("read:")));
        assert_eq!(
            names(
                offered_scopes(Some("write:shipments read:shipments read:shipments"))
                    .unwrap_or_default()
            ),
            ["read:shipments", "write:shipments"]
        );
        assert_eq!(
            offered_scopes(Some("read:shipments fly")),
            Err("fly".into())
        );
    }
}
