//! `shipbase dev seed`: tools for developers and benchmarks, never needed to run the service.

use crate::service::{
    Actor, Ctx,
    seed::{self, Seed},
};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Write N realistic shipments into an organization (for measuring growth).
    Seed {
        /// Organization id (org_…).
        #[arg(long)]
        org: String,
        /// How many shipments to write.
        #[arg(long, value_name = "N")]
        shipments: u64,
    },
}

pub async fn run(ctx: &Ctx, command: Command) -> Result<(), String> {
    match command {
        Command::Seed { org, shipments } => {
            let started = std::time::Instant::now();
            let written = seed::shipments(
                ctx,
                &Actor::admin(),
                Seed {
                    org_id: org,
                    shipments,
                },
            )
            .await
            .map_err(super::describe)?;
            println!(
                "seeded {written} shipments in {:.1} s",
                started.elapsed().as_secs_f64()
            );
            Ok(())
        }
    }
}
