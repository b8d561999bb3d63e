//! `shipbase copy-data --to postgres://…` (or `--from`): moves a whole installation between the
//! SQLite file in the data directory and an empty PostgreSQL database (DESIGN §18).

use crate::{
    config::Config,
    store::copy::{self, Location},
};

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("direction").required(true).args(["to", "from"])))]
pub struct Args {
    /// Copy the SQLite installation into this empty PostgreSQL database.
    #[arg(long, value_name = "URL")]
    to: Option<String>,
    /// Copy this PostgreSQL database into the (empty) SQLite file of the data directory.
    #[arg(long, value_name = "URL")]
    from: Option<String>,
}

impl Args {
    /// Whether the copy reads the SQLite file (and so needs it to be there).
    pub fn reads_the_file(&self) -> bool {
        self.to.is_some()
    }
}

pub fn run(config: &Config, args: Args) -> Result<(), String> {
    let dir = &config.storage.data_dir;
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create data directory {}: {e}", dir.display()))?;
    let file = config.database_path();
    let sqlite = Location::Sqlite(&file);
    let copied = match (&args.to, &args.from) {
        (Some(url), None) => copy::copy(&sqlite, &Location::Postgres(postgres_url(url)?)),
        (None, Some(url)) => copy::copy(&Location::Postgres(postgres_url(url)?), &sqlite),
        _ => return Err("give exactly one of --to and --from".into()),
    }
    .map_err(super::describe)?;
    let mut total = 0;
    for c in &copied {
        println!("{:<22} {:>10}", c.table, c.rows);
        total += c.rows;
    }
    println!(
        "copied {total} rows in {} tables; the row counts match",
        copied.len()
    );
    Ok(())
}

fn postgres_url(url: &str) -> Result<&str, String> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(url)
    } else {
        Err(format!("{url:?} is not a postgres:// URL"))
    }
}
