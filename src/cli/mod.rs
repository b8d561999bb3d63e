//! The command line: `shipbase <noun> <verb>`, one file per noun. Exit status 0 on success,
//! 2 on bad usage (clap), 1 on any other failure with one line on stderr.

use std::{path::PathBuf, process::ExitCode};

use clap::{Parser, Subcommand};

use crate::{
    config::{Config, Overrides},
    error::Error,
    service::Ctx,
};

mod backup;
mod config_cmd;
mod copy_data;
mod dev;
mod migrate;
mod org;
mod serve;
mod staff;
mod token;
mod user;

/// Self-hosted shipping management in one binary.
#[derive(Parser)]
#[command(name = "shipbase", version, about, propagate_version = true)]
pub struct Cli {
    /// Configuration file (TOML).
    #[arg(long, global = true, env = "SHIPBASE_CONFIG", value_name = "FILE")]
    config: Option<PathBuf>,
    /// Data directory holding shipbase.db (overrides storage.data_dir).
    #[arg(long, global = true, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// PostgreSQL URL, postgres://user:pass@host:port/db (overrides storage.url).
    #[arg(long, global = true, value_name = "URL")]
    database_url: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP server.
    Serve(serve::Args),
    /// Manage organizations.
    #[command(subcommand)]
    Org(org::Command),
    /// Manage API tokens.
    #[command(subcommand)]
    Token(token::Command),
    /// Manage users.
    #[command(subcommand)]
    User(user::Command),
    /// Manage instance staff.
    #[command(subcommand)]
    Staff(staff::Command),
    /// Write a consistent copy of the database to FILE (safe while the server runs).
    Backup(backup::Args),
    /// Apply pending database migrations.
    Migrate,
    /// Copy the whole installation between the SQLite file and a PostgreSQL database.
    CopyData(copy_data::Args),
    /// Check or print configuration.
    #[command(subcommand)]
    Config(config_cmd::Command),
    /// Developer tools (seeding data for benchmarks).
    #[command(subcommand)]
    Dev(dev::Command),
}

/// Parses the command line and runs it.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    let overrides = Overrides {
        data_dir: cli.data_dir.clone(),
        database_url: cli.database_url.clone(),
        ..Overrides::default()
    };
    match cli.command {
        Command::Serve(args) => serve::run(cli.config.as_deref(), overrides, args),
        Command::Config(cmd) => config_cmd::run(cli.config.as_deref(), &overrides, cmd),
        Command::Migrate => migrate::run(&load(cli.config.as_deref(), &overrides)?),
        Command::CopyData(args) => {
            let config = load(cli.config.as_deref(), &overrides)?;
            if args.reads_the_file() {
                existing_database(&config)?;
            }
            copy_data::run(&config, args)
        }
        command => {
            let config = load(cli.config.as_deref(), &overrides)?;
            if !matches!(command, Command::Org(ref cmd) if cmd.may_create_the_database()) {
                existing_database(&config)?;
            }
            block_on(async move {
                let ctx = Ctx::open(config).map_err(describe)?;
                match command {
                    Command::Org(cmd) => org::run(&ctx, cmd).await,
                    Command::Token(cmd) => token::run(&ctx, cmd).await,
                    Command::User(cmd) => user::run(&ctx, cmd).await,
                    Command::Staff(cmd) => staff::run(&ctx, cmd).await,
                    Command::Backup(args) => backup::run(&ctx, args).await,
                    Command::Dev(cmd) => dev::run(&ctx, cmd).await,
                    Command::Serve(_)
                    | Command::Config(_)
                    | Command::Migrate
                    | Command::CopyData(_) => Ok(()),
                }
            })
        }
    }
}

/// Refuses to go on when the SQLite file is not there: a command run from the wrong directory
/// must not quietly create an empty installation beside the real one. Only `serve`, `migrate`,
/// `copy-data --from` and `org create --init` create it.
fn existing_database(config: &Config) -> Result<(), String> {
    if config.database_url().is_some() {
        return Ok(());
    }
    let path = config.database_path();
    if path.exists() {
        return Ok(());
    }
    let shown = std::path::absolute(&path).unwrap_or(path);
    Err(format!(
        "no database at {}: run the command where the server keeps its data, or point to it with \
         --data-dir DIR or a configuration file (--config FILE or SHIPBASE_CONFIG); \
         `shipbase serve` creates the database on first start, `shipbase org create --init` \
         creates it without a server",
        shown.display()
    ))
}

/// The configuration every command reads (DESIGN §14).
fn load(file: Option<&std::path::Path>, overrides: &Overrides) -> Result<Config, String> {
    Config::load(file, std::env::vars(), overrides)
}

fn block_on<F: Future<Output = Result<(), String>>>(future: F) -> Result<(), String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?
        .block_on(future)
}

/// One line for a domain error, in the CLI's words.
fn describe(err: Error) -> String {
    match err {
        Error::Validation(errors) => errors
            .iter()
            .map(|e| format!("{}: {}", e.field, e.message))
            .collect::<Vec<_>>()
            .join("; "),
        Error::NotFound => "not found".into(),
        Error::Internal(message) => message,
        other => other.to_string(),
    }
}

/// `describe`, naming what was not found.
fn describe_missing(err: Error, what: &str) -> String {
    match err {
        Error::NotFound => format!("{what} not found"),
        other => describe(other),
    }
}

/// Prints a value as pretty JSON.
fn print_json(value: &serde_json::Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_default()
    );
}
