//! Field-level validation. A `Violations` collects every problem of a request so that the client
//! learns all of them at once; field names are the API's (camelCase, dotted paths).

use std::fmt::Display;

use crate::error::{Error, FieldError};

#[derive(Debug, Default)]
pub struct Violations(Vec<FieldError>);

impl From<Vec<FieldError>> for Violations {
    fn from(errors: Vec<FieldError>) -> Violations {
        Violations(errors)
    }
}

impl Violations {
    pub fn new() -> Violations {
        Violations::default()
    }

    pub fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.0.push(FieldError {
            field: field.into(),
            message: message.into(),
        });
    }

    /// A string whose length in characters lies in `min..=max`. The field's name (here and in
    /// the checks below) is written only for a problem: a path such as
    /// `format_args!("{at}.name")` costs nothing when the value is right.
    pub fn length(&mut self, field: impl Display, value: &str, min: usize, max: usize) {
        let len = value.chars().count();
        if len < min {
            if min == 1 {
                self.add(field.to_string(), "must not be empty");
            } else {
                self.add(
                    field.to_string(),
                    format!("must be at least {min} characters long"),
                );
            }
        } else if len > max {
            self.add(
                field.to_string(),
                format!("must be at most {max} characters long"),
            );
        }
    }

    pub fn email(&mut self, field: impl Display, value: &str) {
        if !is_email(value) {
            self.add(field.to_string(), "must be an e-mail address");
        }
    }

    pub fn one_of(&mut self, field: impl Display, value: &str, allowed: &[&str]) {
        if !allowed.contains(&value) {
            self.add(
                field.to_string(),
                format!("must be one of {}", allowed.join(", ")),
            );
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_vec(self) -> Vec<FieldError> {
        self.0
    }

    /// Adds `more`, leaving out what it says of a field that already has a problem here (or of
    /// a field inside one: `parties[0].name` when `parties` has one).
    pub fn merge(&mut self, more: Violations) {
        for error in more.0 {
            let covered = self.0.iter().any(|known| {
                error.field == known.field
                    || error.field.starts_with(&format!("{}.", known.field))
                    || error.field.starts_with(&format!("{}[", known.field))
            });
            if !covered {
                self.0.push(error);
            }
        }
    }

    /// `Ok(())` when nothing was found, else `Error::Validation` listing every violation.
    pub fn finish(self) -> Result<(), Error> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(Error::Validation(self.0))
        }
    }
}

/// An e-mail address as RFC 5322 allows it, with a dotted domain (what users mean by one).
pub fn is_email(value: &str) -> bool {
    value
        .parse::<email_address::EmailAddress>()
        .is_ok_and(|addr| addr.domain().contains('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_need_a_local_part_and_a_dotted_domain() {
        assert!(is_email("warehouse@example.com"));
        assert!(is_email("first.last+tag@sub.example.co.uk"));
        for bad in [
            "",
            "not-an-email",
            "warehouse.example.com",
            "@example.com",
            "a@b",
            "a@@b.com",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
    }

    #[test]
    fn length_counts_characters_not_bytes() {
        let mut v = Violations::new();
        v.length("name", "øøø", 1, 3);
        assert!(v.finish().is_ok());
        let mut v = Violations::new();
        v.length("name", "", 1, 3);
        v.length("slug", "abcd", 1, 3);
        match v.finish() {
            Err(Error::Validation(errors)) => {
                let fields: Vec<_> = errors.iter().map(|e| e.field.as_str()).collect();
                assert_eq!(fields, ["name", "slug"]);
            }
            other => panic!("expected validation errors, got {other:?}"),
        }
    }
}
