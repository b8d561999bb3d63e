//! The keys of a configuration: those no section has (each named with the closest known key)
//! and values of the wrong type, all found in one pass instead of the first one only.

use super::Config;

/// Takes every key out of `tree` that `defaults` does not have at that place, and says so for
/// each. Plans are named freely; the keys inside each are a plan's (`plans.default`'s).
pub(super) fn unknown(tree: &mut toml::Table, defaults: &toml::Table) -> Vec<String> {
    let mut problems = Vec::new();
    walk(tree, defaults, "", &mut problems);
    problems
}

fn walk(tree: &mut toml::Table, known: &toml::Table, path: &str, problems: &mut Vec<String>) {
    let plan = (path == "plans")
        .then(|| known.get("default").and_then(toml::Value::as_table))
        .flatten();
    let keys: Vec<String> = tree.keys().cloned().collect();
    for key in keys {
        let at = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        let expected = match plan {
            Some(plan) => Some(plan),
            None => match known.get(&key) {
                Some(toml::Value::Table(inner)) => Some(inner),
                Some(_) => continue,
                None => {
                    let names = known.keys().map(String::as_str);
                    problems.push(match crate::model::spelling::suggestion(&key, names) {
                        Some(close) => format!("{at}: unknown key; did you mean \"{close}\"?"),
                        None => format!("{at}: unknown key"),
                    });
                    tree.remove(&key);
                    continue;
                }
            },
        };
        if let (Some(toml::Value::Table(inner)), Some(expected)) = (tree.get_mut(&key), expected) {
            walk(inner, expected, &at, problems);
        }
    }
}

/// `tree` as a `Config`. A value of the wrong type is named and put back to its default, and
/// the rest read again, so that every such value is reported.
pub(super) fn decode(
    mut tree: toml::Table,
    defaults: &toml::Table,
    problems: &mut Vec<String>,
) -> Config {
    for _ in 0..32 {
        let error = match toml::Value::Table(tree.clone()).try_into::<Config>() {
            Ok(config) => return config,
            Err(error) => error,
        };
        let message = super::one_line(&error);
        let Some((what, key)) = message
            .rsplit_once(" in `")
            .map(|(what, key)| (what, key.trim_end_matches('`')))
        else {
            problems.push(message);
            break;
        };
        problems.push(format!("{key}: {}", plain(what)));
        let path: Vec<&str> = key.split('.').collect();
        if !reset(&mut tree, defaults, &path) {
            break;
        }
    }
    Config::default()
}

/// Puts the value at `path` back to its default (a plan's is `plans.default`'s), or takes it
/// out when it has none.
fn reset(tree: &mut toml::Table, defaults: &toml::Table, path: &[&str]) -> bool {
    let mut lookup: Vec<&str> = path.to_vec();
    if lookup.len() >= 3 && lookup[0] == "plans" {
        lookup[1] = "default";
    }
    let default = lookup
        .iter()
        .try_fold(None::<&toml::Value>, |at, key| match at {
            None => defaults.get(*key).map(Some),
            Some(toml::Value::Table(t)) => t.get(*key).map(Some),
            Some(_) => None,
        })
        .flatten()
        .cloned();
    let Some((last, parents)) = path.split_last() else {
        return false;
    };
    let mut table = tree;
    for key in parents {
        match table.get_mut(*key) {
            Some(toml::Value::Table(inner)) => table = inner,
            _ => return false,
        }
    }
    match default {
        Some(value) => table.insert((*last).to_string(), value).is_some(),
        None => table.remove(*last).is_some(),
    }
}

/// serde's "invalid type: string \"many\", expected u32" in a user's words.
fn plain(what: &str) -> String {
    let Some((got, expected)) = what
        .strip_prefix("invalid type: ")
        .and_then(|rest| rest.split_once(", expected "))
    else {
        return what.to_string();
    };
    let wanted = match expected {
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number of at least 0",
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number",
        "f32" | "f64" => "a number",
        "a boolean" => "true or false",
        "a string" => "text in quotes",
        "a sequence" => "a list",
        other => other,
    };
    format!("must be {wanted}, not {got}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unknown_key_and_every_mistyped_value_is_named() {
        let defaults = toml::Table::try_from(Config::default()).unwrap_or_default();
        let mut tree = defaults.clone();
        let given: toml::Table = toml::from_str(
            "[server]\nlisen = \"x\"\n[limits]\nburst = \"many\"\nrate_per_second = true\n\
             [webhooks]\nallow_private_target = true\n[plans.tiny]\nshipmens = 3\ncarriers = \"x\"\n",
        )
        .unwrap_or_default();
        super::super::merge(&mut tree, given);
        let mut problems = unknown(&mut tree, &defaults);
        let config = decode(tree, &defaults, &mut problems);
        assert_eq!(
            problems,
            [
                "plans.tiny.shipmens: unknown key; did you mean \"shipments\"?",
                "server.lisen: unknown key; did you mean \"listen\"?",
                "webhooks.allow_private_target: unknown key; did you mean \"allow_private_targets\"?",
                "limits.burst: must be a whole number of at least 0, not string \"many\"",
                "limits.rate_per_second: must be a whole number of at least 0, not boolean `true`",
                "plans.tiny.carriers: must be a whole number of at least 0, not string \"x\"",
            ]
        );
        assert_eq!(config.limits.burst, Config::default().limits.burst);
        assert!(config.plans.contains_key("tiny"));
    }
}
