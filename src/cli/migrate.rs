//! `shipbase migrate`: apply pending migrations and say which.

use crate::{config::Config, store};

pub fn run(config: &Config) -> Result<(), String> {
    if let Some(url) = config.database_url() {
        return report(store::pg::migrate(url).map_err(super::describe)?);
    }
    let dir = &config.storage.data_dir;
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create data directory {}: {e}", dir.display()))?;
    report(store::migrate_file(&config.database_path()).map_err(super::describe)?)
}

fn report(applied: Vec<String>) -> Result<(), String> {
    if applied.is_empty() {
        println!("database is up to date");
    } else {
        for name in applied {
            println!("applied {name}");
        }
    }
    Ok(())
}
