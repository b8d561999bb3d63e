//! `shipbase org create`: an organization, its owner, and the owner's first API token.

use poem_openapi::types::ToJSON;

use crate::{
    model::{api_token::ApiTokenIn, org::OrgIn, scope::ScopeSet},
    service::{
        Actor, Ctx, Input,
        api_tokens::{self},
        orgs::{self},
    },
};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Move an organization to another plan of the configuration.
    SetPlan {
        /// Organization id (org_…).
        org_id: String,
        /// A plan name of the configuration ([plans.<name>]).
        plan: String,
    },
    /// Create an organization with its owner and an owner API token (read:all write:all).
    Create {
        #[arg(long)]
        name: String,
        /// Unique; lower-case letters, digits and dashes.
        #[arg(long)]
        slug: String,
        /// E-mail of the owner (created when new; an existing user needs
        /// --attach-existing-user).
        #[arg(long)]
        email: String,
        /// Name of the owner.
        #[arg(long)]
        user_name: String,
        /// Plan from the configuration (default: default).
        #[arg(long)]
        plan: Option<String>,
        /// Make the existing user with that e-mail the owner.
        #[arg(long)]
        attach_existing_user: bool,
        /// Print {"org", "user", "token"} as JSON.
        #[arg(long)]
        json: bool,
        /// Create the database in the data directory when there is none yet (first use before
        /// the server has ever started there).
        #[arg(long)]
        init: bool,
    },
}

impl Command {
    /// Whether this command was told it may create a new database (`org create --init`).
    pub fn may_create_the_database(&self) -> bool {
        matches!(self, Command::Create { init: true, .. })
    }
}

pub async fn run(ctx: &Ctx, command: Command) -> Result<(), String> {
    let admin = Actor::admin();
    let (name, slug, email, user_name, plan, attach, json) = match command {
        Command::SetPlan { org_id, plan } => {
            let org = orgs::set_plan(ctx, &admin, &org_id, &plan)
                .await
                .map_err(|e| super::describe_missing(e, &format!("organization {org_id}")))?;
            println!(
                "organization {} ({}) is on plan {}",
                org.slug, org.id, org.plan
            );
            return Ok(());
        }
        Command::Create {
            name,
            slug,
            email,
            user_name,
            plan,
            attach_existing_user,
            json,
            init: _,
        } => (
            name,
            slug,
            email,
            user_name,
            plan,
            attach_existing_user,
            json,
        ),
    };
    let new = OrgIn {
        name,
        slug,
        description: None,
        creator_email: email,
        creator_name: user_name,
        existing_user: attach.then_some(crate::model::org::ExistingUser::Attach),
        plan,
    };
    let created = orgs::create(ctx, &admin, Input::ok(new))
        .await
        .map_err(super::describe)?;
    let token = ApiTokenIn {
        name: "Owner token".into(),
        scopes: ScopeSet::everything().to_strings(),
        expires_at: None,
    };
    let token = api_tokens::create(ctx, &admin, &created.org.id, Input::ok(token))
        .await
        .map_err(super::describe)?;
    if json {
        super::print_json(&serde_json::json!({
            "org": created.org.to_json(),
            "user": created.user.to_json(),
            "token": token.token,
        }));
    } else {
        println!(
            "organization {} ({}) created",
            created.org.slug, created.org.id
        );
        println!("owner        {} ({})", created.user.email, created.user.id);
        println!("API token    {}", token.token);
        println!("The token is shown only now; keep it somewhere safe.");
    }
    Ok(())
}
