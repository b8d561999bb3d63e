//! Configuration: built-in defaults → TOML file → `SHIPBASE_<SECTION>__<KEY>` environment
//! variables → command-line flags, each overriding the one before. `validate` checks every key
//! without opening a port or a file.

use std::{collections::BTreeMap, path::PathBuf};

use serde::{Deserialize, Serialize};

mod keys;
mod sections;
mod validate;

pub use sections::{
    AddOn, Carriers, Limits, Log, Login, OAuth, Plan, Printers, Server, Signup, Smtp, Storage,
    Webhooks,
};

/// The documented example, compiled in: `shipbase config example` prints it.
pub const EXAMPLE: &str = include_str!("../../config.example.toml");

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub server: Server,
    pub storage: Storage,
    pub log: Log,
    pub limits: Limits,
    pub signup: Signup,
    pub webhooks: Webhooks,
    pub smtp: Smtp,
    pub printers: Printers,
    pub carriers: Carriers,
    pub oauth: OAuth,
    pub login: Login,
    pub plans: BTreeMap<String, Plan>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            server: Server::default(),
            storage: Storage::default(),
            log: Log::default(),
            limits: Limits::default(),
            signup: Signup::default(),
            webhooks: Webhooks::default(),
            smtp: Smtp::default(),
            printers: Printers::default(),
            carriers: Carriers::default(),
            oauth: OAuth::default(),
            login: Login::default(),
            plans: BTreeMap::from([(String::from("default"), Plan::default())]),
        }
    }
}

/// Flags that override the file and the environment.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub listen: Option<String>,
    pub data_dir: Option<PathBuf>,
    pub database_url: Option<String>,
    pub base_url: Option<String>,
}

impl Config {
    /// Loads the configuration: defaults, then `file` (if any), then `env`, then `overrides`,
    /// and validates the result. Errors are one line, naming the file or key at fault.
    pub fn load(
        file: Option<&std::path::Path>,
        env: impl IntoIterator<Item = (String, String)>,
        overrides: &Overrides,
    ) -> Result<Config, String> {
        Config::check(file, env, overrides).map_err(|problems| problems.join("; "))
    }

    /// `load`, with every problem of the configuration (unknown keys with the closest known
    /// one, values of the wrong type, values out of range), each naming its key.
    pub fn check(
        file: Option<&std::path::Path>,
        env: impl IntoIterator<Item = (String, String)>,
        overrides: &Overrides,
    ) -> Result<Config, Vec<String>> {
        let defaults = toml::Table::try_from(Config::default()).map_err(|e| vec![e.to_string()])?;
        let mut tree = defaults.clone();
        if let Some(path) = file {
            let text = std::fs::read_to_string(path)
                .map_err(|e| vec![format!("cannot read config file {}: {e}", path.display())])?;
            let table: toml::Table = toml::from_str(&text)
                .map_err(|e| vec![format!("config file {}: {}", path.display(), one_line(&e))])?;
            merge(&mut tree, table);
        }
        for (key, value) in env {
            let Some(rest) = key.strip_prefix("SHIPBASE_") else {
                continue;
            };
            if !rest.contains("__") {
                continue; // SHIPBASE_CONFIG and friends are not keys
            }
            let path: Vec<String> = rest.split("__").map(str::to_lowercase).collect();
            set_path(&mut tree, &path, env_value(&value));
        }
        let source = file.map_or_else(
            || "configuration".to_string(),
            |p| format!("config {}", p.display()),
        );
        let mut problems = keys::unknown(&mut tree, &defaults);
        let mut config = keys::decode(tree, &defaults, &mut problems);
        if let Some(listen) = &overrides.listen {
            config.server.listen.clone_from(listen);
        }
        if let Some(dir) = &overrides.data_dir {
            config.storage.data_dir.clone_from(dir);
        }
        if let Some(url) = &overrides.database_url {
            config.storage.url.clone_from(url);
        }
        if let Some(url) = &overrides.base_url {
            config.server.base_url.clone_from(url);
        }
        problems.extend(config.problems());
        if problems.is_empty() {
            Ok(config)
        } else {
            Err(problems
                .into_iter()
                .map(|p| format!("{source}: {p}"))
                .collect())
        }
    }

    /// The public URL without a trailing slash.
    pub fn base_url(&self) -> String {
        if self.server.base_url.is_empty() {
            format!("http://{}", self.server.listen)
        } else {
            self.server.base_url.trim_end_matches('/').to_string()
        }
    }

    pub fn database_path(&self) -> PathBuf {
        self.storage.data_dir.join("shipbase.db")
    }

    /// The PostgreSQL URL, when the installation runs on PostgreSQL.
    pub fn database_url(&self) -> Option<&str> {
        Some(self.storage.url.as_str()).filter(|u| !u.is_empty())
    }
}

fn one_line(err: &impl std::fmt::Display) -> String {
    err.to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn merge(base: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

fn set_path(tree: &mut toml::Table, path: &[String], value: toml::Value) {
    match path {
        [] => {}
        [last] => {
            tree.insert(last.clone(), value);
        }
        [first, rest @ ..] => {
            let entry = tree
                .entry(first.clone())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            if !entry.is_table() {
                *entry = toml::Value::Table(toml::Table::new());
            }
            if let toml::Value::Table(inner) = entry {
                set_path(inner, rest, value);
            }
        }
    }
}

/// An environment value is read as a TOML value when it is one (`true`, `42`, `0.5`),
/// otherwise as a string.
fn env_value(raw: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .filter(|v| !v.is_table())
        .unwrap_or_else(|| toml::Value::String(raw.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_example_file_is_the_defaults() {
        let parsed: Config =
            toml::from_str(EXAMPLE).unwrap_or_else(|e| panic!("example does not parse: {e}"));
        assert_eq!(parsed, Config::default());
    }

    #[test]
    fn file_then_env_then_flags() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("c.toml");
        std::fs::write(&file, "[server]\nlisten = \"127.0.0.1:9000\"\n[signup]\nopen = true\n[plans.tiny]\ncarriers = 2\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let config = Config::load(
            Some(&file),
            env(&[
                ("SHIPBASE_LIMITS__BURST", "7"),
                ("SHIPBASE_SERVER__LISTEN", "127.0.0.1:9001"),
                ("SHIPBASE_CONFIG", "x"),
            ]),
            &Overrides {
                data_dir: Some("/tmp/x".into()),
                ..Overrides::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(config.server.listen, "127.0.0.1:9001");
        assert!(config.signup.open);
        assert_eq!(config.limits.burst, 7);
        assert_eq!(config.storage.data_dir, PathBuf::from("/tmp/x"));
        assert_eq!(config.plans["tiny"].carriers, 2);
        assert!(
            config.plans.contains_key("default"),
            "defaults survive a file that adds plans"
        );
        let flagged = Config::load(
            None,
            env(&[]),
            &Overrides {
                listen: Some("127.0.0.1:1".into()),
                ..Overrides::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(flagged.server.listen, "127.0.0.1:1");
    }

    #[test]
    fn bad_values_name_their_key() {
        let cases = [
            ("SHIPBASE_SERVER__LISTEN", "nowhere", "server.listen"),
            (
                "SHIPBASE_STORAGE__SYNCHRONOUS",
                "sometimes",
                "storage.synchronous",
            ),
            (
                "SHIPBASE_LIMITS__MAX_BODY_BYTES",
                "0",
                "limits.max_body_bytes",
            ),
            ("SHIPBASE_LOG__LEVEL", "loud", "log.level"),
            ("SHIPBASE_SERVER__BASE_URL", "ftp://x", "server.base_url"),
        ];
        for (key, value, named) in cases {
            let err = Config::load(None, env(&[(key, value)]), &Overrides::default())
                .err()
                .unwrap_or_default();
            assert!(err.contains(named), "{key}={value}: {err}");
        }
    }

    #[test]
    fn unknown_keys_and_wrong_types_are_refused() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("c.toml");
        std::fs::write(&file, "[server]\nlisen = \"127.0.0.1:9000\"\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let err = Config::load(Some(&file), env(&[]), &Overrides::default())
            .err()
            .unwrap_or_default();
        assert!(err.contains("lisen"), "{err}");
        std::fs::write(&file, "[limits]\nburst = \"many\"\n").unwrap_or_else(|e| panic!("{e}"));
        assert!(Config::load(Some(&file), env(&[]), &Overrides::default()).is_err());
        assert!(!err.contains('\n'));
    }

    #[test]
    fn base_url_defaults_to_the_listen_address_and_loses_its_slash() {
        let mut config = Config::default();
        assert_eq!(config.base_url(), "http://127.0.0.1:8080");
        config.server.base_url = "https://ship.example.com/".into();
        assert_eq!(config.base_url(), "https://ship.example.com");
    }
}
