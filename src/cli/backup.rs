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
    if ctx.config.storage.secret_key.is_empty() {
        // Stored secrets are encrypted with this key: a restore needs both files.
        let key = ctx.config.storage.data_dir.join("secret.key");
        println!("keep a copy of {} with it", key.display());
    }
    Ok(())
}
