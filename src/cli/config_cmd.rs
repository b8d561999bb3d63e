//! `shipbase config check [FILE]` and `shipbase config example`.

use std::path::{Path, PathBuf};

use crate::config::{self, Overrides};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Validate a configuration file (default: --config) without starting anything.
    Check {
        /// The file to check.
        file: Option<PathBuf>,
    },
    /// Print the documented example configuration (the built-in defaults).
    Example,
}

pub fn run(file: Option<&Path>, overrides: &Overrides, command: Command) -> Result<(), String> {
    match command {
        Command::Example => {
            print!("{}", config::EXAMPLE);
            Ok(())
        }
        Command::Check { file: given } => {
            let file = given.as_deref().or(file);
            let config = match config::Config::check(file, std::env::vars(), overrides) {
                Ok(config) => config,
                // Every problem, in the one line a failing command writes.
                Err(problems) if problems.len() == 1 => return Err(problems.join("")),
                Err(problems) => {
                    return Err(format!(
                        "{} problems: {}",
                        problems.len(),
                        problems.join("; ")
                    ));
                }
            };
            match file {
                Some(path) => println!("{}: ok", path.display()),
                None => println!("configuration: ok (built-in defaults and environment)"),
            }
            println!(
                "listen {} · base URL {} · data {}",
                config.server.listen,
                config.base_url(),
                config.storage.data_dir.display()
            );
            Ok(())
        }
    }
}
