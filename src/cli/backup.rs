//! `shipbase backup FILE`: a consistent copy of the live database.

use std::path::PathBuf;

use crate::service::Ctx;

#[derive(clap::Args)]
pub struct Args {
    /// Where to write the copy; must not exist yet.
    file: PathBuf,
}

pub async fn run(ctx: &Ctx, args: Args) -> Result<(), String> {
    if args.file.exists() {
        return Err(format!(
            "{} already exists; choose a new file",
            args.file.display()
        ));
    }
    ctx.db.backup(&args.file).await.map_err(super::describe)?;
    println!("backup written to {}", args.file.display());
    Ok(())
}
