//! `shipbase migrate`: apply pending migrations and say which.

use crate::{config::Config, store};

pub fn run(config: &Config) -> Result<(), String> {
    let dir = &config.storage.data_dir;
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create data directory {}: {e}", dir.display()))?;
    let applied = store::migrate_file(&config.database_path()).map_err(super::describe)?;
    if applied.is_empty() {
        println!("database is up to date");
    } else {
        for name in applied {
            println!("applied {name}");
        }
    }
    Ok(())
}
