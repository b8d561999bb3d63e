//! `Config::validate`: every value checked, each error naming its key.

use std::net::SocketAddr;

use super::Config;

impl Config {
    /// Checks every value; the error names the key.
    pub fn validate(&self) -> Result<(), String> {
        let problems = self.problems();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }

    /// Every value that is wrong, each naming its key.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.server.listen.parse::<SocketAddr>().is_err() {
            problems.push(format!(
                "server.listen: {:?} is not an address like 127.0.0.1:8080",
                self.server.listen
            ));
        }
        if !self.server.base_url.is_empty() {
            let url = &self.server.base_url;
            let rest = url
                .strip_prefix("https://")
                .or_else(|| url.strip_prefix("http://"));
            if rest.is_none_or(|host| host.is_empty() || host.contains(char::is_whitespace)) {
                problems.push(format!("server.base_url: {url:?} is not an http(s) URL"));
            }
        }
        for origin in &self.server.allowed_origins {
            let ok = url::Url::parse(origin).is_ok_and(|u| {
                matches!(u.scheme(), "http" | "https")
                    && u.host().is_some()
                    && u.path() == "/"
                    && !origin.ends_with('/')
            });
            if !ok {
                problems.push(format!(
                    "server.allowed_origins: {origin:?} is not an origin like https://app.example.com"
                ));
            }
        }
        if self.storage.data_dir.as_os_str().is_empty() {
            problems.push(String::from("storage.data_dir: must not be empty"));
        }
        if !["off", "normal", "full"].contains(&self.storage.synchronous.as_str()) {
            problems.push(format!(
                "storage.synchronous: {:?} is not off, normal or full",
                self.storage.synchronous
            ));
        }
        if !self.storage.url.is_empty()
            && !self.storage.url.starts_with("postgres://")
            && !self.storage.url.starts_with("postgresql://")
        {
            problems.push(String::from(
                "storage.url: must start with postgres:// (or be empty for SQLite)",
            ));
        }
        if self.storage.read_connections == 0 {
            problems.push(String::from("storage.read_connections: must be at least 1"));
        }
        if !["trace", "debug", "info", "warn", "error"].contains(&self.log.level.as_str()) {
            problems.push(format!(
                "log.level: {:?} is not trace, debug, info, warn or error",
                self.log.level
            ));
        }
        if !["text", "json"].contains(&self.log.format.as_str()) {
            problems.push(format!(
                "log.format: {:?} is not text or json",
                self.log.format
            ));
        }
        if self.limits.max_body_bytes == 0 {
            problems.push(String::from("limits.max_body_bytes: must be at least 1"));
        }
        if !(self.webhooks.retry_scale.is_finite() && self.webhooks.retry_scale > 0.0) {
            problems.push(String::from(
                "webhooks.retry_scale: must be a positive number",
            ));
        }
        problems.extend(self.smtp_problems());
        if !(self.printers.retry_scale.is_finite() && self.printers.retry_scale >= 0.0) {
            problems.push(String::from(
                "printers.retry_scale: must be a number of at least 0",
            ));
        }
        if self.carriers.timeout_seconds == 0 {
            problems.push(String::from("carriers.timeout_seconds: must be at least 1"));
        }
        for (key, url) in [
            ("postnord_url", &self.carriers.postnord_url),
            ("dhl_express_url", &self.carriers.dhl_express_url),
            ("ups_url", &self.carriers.ups_url),
            ("dhl_parcel_de_url", &self.carriers.dhl_parcel_de_url),
        ] {
            if !url.is_empty() && url::Url::parse(url).is_err() {
                problems.push(format!("carriers.{key}: {url:?} is not a URL"));
            }
        }
        if self.webhooks.max_concurrency == 0 {
            problems.push(String::from("webhooks.max_concurrency: must be at least 1"));
        }
        if self.webhooks.retention_days == 0 {
            problems.push(String::from("webhooks.retention_days: must be at least 1"));
        }
        if self.oauth.access_token_ttl_seconds == 0 || self.oauth.refresh_token_ttl_days == 0 {
            problems.push(String::from("oauth: token lifetimes must be at least 1"));
        }
        if self.oauth.max_unused_clients == 0 {
            problems.push(String::from("oauth.max_unused_clients: must be at least 1"));
        }
        if self.login.failures_per_minute == 0 || self.login.failures_per_address_per_minute == 0 {
            problems.push(
                "login: failures_per_minute and failures_per_address_per_minute must be at least 1"
                    .into(),
            );
        }
        let limits = &self.limits;
        for (key, value) in [
            ("header_timeout_seconds", limits.header_timeout_seconds),
            ("idle_timeout_seconds", limits.idle_timeout_seconds),
            ("max_connections", u64::from(limits.max_connections)),
            (
                "max_connections_per_ip",
                u64::from(limits.max_connections_per_ip),
            ),
        ] {
            if value == 0 {
                problems.push(format!("limits.{key}: must be at least 1"));
            }
        }
        for (key, entries) in [
            ("server.trusted_proxies", &self.server.trusted_proxies),
            ("printers.allowed_networks", &self.printers.allowed_networks),
        ] {
            for entry in entries {
                if let Err(e) = crate::model::net::parse(entry) {
                    problems.push(format!("{key}: {e}"));
                }
            }
        }
        if !self.plans.contains_key("default") {
            problems.push(String::from(
                "plans.default: a plan named default is required",
            ));
        }
        for (name, plan) in &self.plans {
            if !(plan.overage_price.is_finite() && plan.overage_price >= 0.0) {
                problems.push(format!(
                    "plans.{name}.overage_price: must be a number of at least 0"
                ));
            }
            let kinds: Vec<&str> = crate::model::usage::Limit::ALL
                .iter()
                .map(|l| l.add_on())
                .collect();
            for add_on in &plan.add_ons {
                if !kinds.contains(&add_on.kind.as_str()) {
                    problems.push(format!(
                        "plans.{name}.add_ons: type {:?} is not one of {}",
                        add_on.kind,
                        kinds.join(", ")
                    ));
                }
                if !(add_on.unit_price.is_finite() && add_on.unit_price >= 0.0) {
                    problems.push(format!(
                        "plans.{name}.add_ons: unit_price must be a number of at least 0"
                    ));
                }
            }
        }
        problems
    }
}

impl Config {
    /// The problems of `[smtp]`: a URL the mail client can use and a sender it can write.
    fn smtp_problems(&self) -> Vec<String> {
        let smtp = &self.smtp;
        let mut problems = Vec::new();
        if !(smtp.retry_scale.is_finite() && smtp.retry_scale > 0.0) {
            problems.push(String::from("smtp.retry_scale: must be a positive number"));
        }
        if smtp.timeout_seconds == 0 {
            problems.push(String::from("smtp.timeout_seconds: must be at least 1"));
        }
        if smtp.max_concurrency == 0 {
            problems.push(String::from("smtp.max_concurrency: must be at least 1"));
        }
        if smtp.url.is_empty() {
            return problems;
        }
        match url::Url::parse(&smtp.url) {
            Ok(url) if !["smtp", "smtps"].contains(&url.scheme()) => problems.push(format!(
                "smtp.url: the scheme must be smtp:// or smtps://, not {}://",
                url.scheme()
            )),
            Ok(url) if url.host_str().is_none_or(str::is_empty) => {
                problems.push(String::from("smtp.url: names no host"))
            }
            Ok(_) => {}
            // The URL itself may hold a password: name the problem, not the value.
            Err(err) => problems.push(format!("smtp.url: is not a URL ({err})")),
        }
        if smtp.from.is_empty() {
            problems.push(String::from(
                "smtp.from: must be set when smtp.url is (the sender address)",
            ));
        } else if smtp.from.parse::<lettre::message::Mailbox>().is_err() {
            problems.push(format!(
                "smtp.from: {:?} is not an e-mail address (name@domain or Name <name@domain>)",
                smtp.from
            ));
        }
        problems
    }
}
