//! `shipbase staff grant`: instance staff may create organizations while sign-up is closed.

use crate::service::{Actor, Ctx, users};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Make a user instance staff.
    Grant {
        #[arg(long)]
        email: String,
    },
}

pub async fn run(ctx: &Ctx, command: Command) -> Result<(), String> {
    match command {
        Command::Grant { email } => {
            let user = users::grant_staff(ctx, &Actor::admin(), &email)
                .await
                .map_err(super::describe)?;
            println!("{} ({}) is now instance staff", user.email, user.id);
            Ok(())
        }
    }
}
