//! `shipbase user add | set-password`.

use std::io::BufRead;

use poem_openapi::types::ToJSON;

use crate::{
    model::org::UserView,
    service::{
        Actor, Ctx, Input,
        users::{self, NewMember},
    },
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
    /// Set a user's password, read as one line from standard input.
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
            let member = NewMember {
                email,
                name,
                role,
                brand,
            };
            let user = users::add(ctx, &admin, &org, Input::ok(member))
                .await
                .map_err(|e| super::describe_missing(e, &format!("organization {org}")))?;
            if json {
                super::print_json(&UserView::from(user).to_json().unwrap_or_default());
            } else {
                println!(
                    "{} ({}) added as {}",
                    user.email,
                    user.id,
                    user.role.as_deref().unwrap_or("member")
                );
            }
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
            println!("password set for {email}");
        }
    }
    Ok(())
}
