//! `shipbase token create | list | revoke`.

use poem_openapi::types::ToJSON;

use crate::{
    model::{api_token::ApiTokenIn, scope::ScopeSet, time},
    service::{
        Actor, Ctx, Input, PageParams,
        api_tokens::{self},
    },
};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Create an API token; its value is printed once.
    Create {
        /// Organization id (org_…).
        #[arg(long)]
        org: String,
        #[arg(long)]
        name: String,
        /// Space-separated scopes.
        #[arg(long, default_value = "read:all write:all")]
        scopes: String,
        /// Lifetime such as 90s, 15m, 12h or 30d (default: no expiry).
        #[arg(long, value_name = "DURATION")]
        expires_in: Option<String>,
        /// Print {"token", "apiToken"} as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the API tokens of an organization.
    List {
        #[arg(long)]
        org: String,
        /// Print an array of ApiToken records as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Revoke an API token at once.
    Revoke {
        /// Token id (tok_…).
        token_id: String,
    },
}

pub async fn run(ctx: &Ctx, command: Command) -> Result<(), String> {
    let admin = Actor::admin();
    match command {
        Command::Create {
            org,
            name,
            scopes,
            expires_in,
            json,
        } => {
            let scopes = ScopeSet::parse(&scopes)
                .map_err(|unknown| crate::model::scope::unknown_scopes(&unknown))?;
            let expires_at = match expires_in {
                None => None,
                Some(text) => {
                    let lifetime = time::parse_duration(&text).ok_or_else(|| {
                        format!("--expires-in {text:?}: use a number and s, m, h or d, e.g. 30d")
                    })?;
                    Some(time::format(ctx.clock.now() + lifetime))
                }
            };
            let new = ApiTokenIn {
                name,
                scopes: scopes.to_strings(),
                expires_at,
            };
            let created = api_tokens::create(ctx, &admin, &org, Input::ok(new))
                .await
                .map_err(|e| super::describe_missing(e, &format!("organization {org}")))?;
            if json {
                super::print_json(&created.to_json().unwrap_or_default());
            } else {
                let record = &created.api_token;
                println!("{}  {}  {}", record.id, record.name, record.scopes);
                println!("{}", created.token);
                println!("The token is shown only now; keep it somewhere safe.");
            }
        }
        Command::List { org, json } => {
            // An organization that is not there is an error, not an empty list.
            crate::service::orgs::get(ctx, &admin, &org)
                .await
                .map_err(|e| super::describe_missing(e, &format!("organization {org}")))?;
            let mut tokens = Vec::new();
            for page in 1u32.. {
                let params = PageParams {
                    page: Some(page.to_string()),
                    limit: Some("100".into()),
                };
                let listed = api_tokens::list(ctx, &admin, &org, params)
                    .await
                    .map_err(|e| super::describe_missing(e, &format!("organization {org}")))?;
                let done = u64::from(page) >= listed.total_pages;
                tokens.extend(listed.data);
                if done {
                    break;
                }
            }
            if json {
                super::print_json(&tokens.to_json().unwrap_or_default());
            } else {
                for t in tokens {
                    let used = t.last_used_at.as_deref().unwrap_or("never used");
                    println!(
                        "{}  {}  {}  {}  {}",
                        t.id, t.token_prefix, t.name, t.scopes, used
                    );
                }
            }
        }
        Command::Revoke { token_id } => {
            api_tokens::revoke_by_id(ctx, &admin, &token_id)
                .await
                .map_err(|e| super::describe_missing(e, &format!("API token {token_id}")))?;
            println!("revoked {token_id}");
        }
    }
    Ok(())
}
