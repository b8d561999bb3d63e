//! `shipbase user add | role | remove | set-password`.

use std::io::BufRead;

use poem_openapi::types::{MaybeUndefined, ToJSON};

use crate::{
    model::{
        member::{MemberIn, MemberPatchIn},
        role::Role,
        user::User,
    },
    service::{
        Actor, Ctx, Input,
        members::{self},
        users,
    },
    store,
};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Add a user to an organization (created when the e-mail is new).
    Add {
        /// Organization id (org_…).
        #[arg(long)]
        org: String,
        #[arg(long)]
        email: String,
        #[arg(long)]
        name: String,
        #[arg(long, default_value = "member", value_parser = ["owner", "admin", "member"])]
        role: String,
        /// Limit the member to one brand (such members cannot connect AI agents).
        #[arg(long)]
        brand: Option<String>,
        /// Print the User as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Change a member's role (and brand limit); their credentials narrow at once.
    Role {
        /// Organization id (org_…).
        #[arg(long)]
        org: String,
        #[arg(long)]
        email: String,
        #[arg(long, value_parser = ["owner", "admin", "member"])]
        role: String,
        /// Limit the member to one brand.
        #[arg(long, conflicts_with = "no_brand")]
        brand: Option<String>,
        /// Lift the member's brand limit.
        #[arg(long)]
        no_brand: bool,
    },
    /// Remove a user from an organization, ending their agent connections and API tokens there.
    Remove {
        /// Organization id (org_…).
        #[arg(long)]
        org: String,
        #[arg(long)]
        email: String,
    },
    /// Set a user's password, read as one line from standard input; signs the user out of the
    /// pages everywhere.
    SetPassword {
        #[arg(long)]
        email: String,
        /// Read the password from standard input (required: passwords never go in arguments).
        #[arg(long, required = true)]
        password_stdin: bool,
    },
}

pub async fn run(ctx: &Ctx, command: Command) -> Result<(), String> {
    let admin = Actor::admin();
    match command {
        Command::Add {
            org,
            email,
            name,
            role,
            brand,
            json,
        } => {
            let member = MemberIn {
                email,
                name,
                role: Role::parse(&role).unwrap_or(Role::Member),
                brand,
            };
            let member = members::add(ctx, &admin, &org, Input::ok(member))
                .await
                .map_err(|e| super::describe_missing(e, &format!("organization {org}")))?;
            if json {
                let (org_id, user_id) = (org.clone(), member.id.clone());
                let user = ctx
                    .db
                    .point(move |db| store::users::in_org(db, &org_id, &user_id))
                    .map_err(super::describe)?
                    .ok_or_else(|| format!("{} is not a member of {org}", member.email))?;
                super::print_json(&User::from(user).to_json().unwrap_or_default());
            } else {
                println!(
                    "{} ({}) added as {}",
                    member.email,
                    member.id,
                    member.role.as_str()
                );
            }
        }
        Command::Role {
            org,
            email,
            role,
            brand,
            no_brand,
        } => {
            let user = users::by_email(ctx, &email)
                .await
                .map_err(super::describe)?;
            let patch = MemberPatchIn {
                role: Role::parse(&role),
                brand: match (brand, no_brand) {
                    (Some(brand), _) => MaybeUndefined::Value(brand),
                    (None, true) => MaybeUndefined::Null,
                    (None, false) => MaybeUndefined::Undefined,
                },
            };
            let member = members::update(ctx, &admin, &org, &user.id, Input::ok(patch))
                .await
                .map_err(|e| super::describe_missing(e, &format!("a member {email} of {org}")))?;
            println!("{} is now {} of {org}", member.email, member.role.as_str());
        }
        Command::Remove { org, email } => {
            let user = users::by_email(ctx, &email)
                .await
                .map_err(super::describe)?;
            members::remove(ctx, &admin, &org, &user.id)
                .await
                .map_err(|e| super::describe_missing(e, &format!("a member {email} of {org}")))?;
            println!("{email} removed from {org}");
        }
        Command::SetPassword {
            email,
            password_stdin: _,
        } => {
            let mut line = String::new();
            std::io::stdin()
                .lock()
                .read_line(&mut line)
                .map_err(|e| format!("cannot read standard input: {e}"))?;
            let password = line
                .strip_suffix('\n')
                .map(|l| l.strip_suffix('\r').unwrap_or(l))
                .unwrap_or(&line);
            users::set_password(ctx, &admin, &email, password)
                .await
                .map_err(super::describe)?;
            println!("password set for {email}; their sessions in the pages have ended");
        }
    }
    Ok(())
}
