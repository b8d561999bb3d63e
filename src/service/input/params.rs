//! Query parameters as the client sent them (`page`, `limit`, instants, enums), parsed by the
//! operation after its authorization checks.

use crate::{
    error::Result,
    model::{time, validate::Violations},
    store::PageQuery,
};

/// `page` and `limit` as the client sent them: parsed by the operation after its authorization
/// checks, so that a caller without rights learns 404/403, never details of the query.
#[derive(Clone, Debug, Default)]
pub struct PageParams {
    pub page: Option<String>,
    pub limit: Option<String>,
}

impl PageParams {
    /// The first `limit` items (1..=100), for callers inside the service's users (the pages).
    pub fn first(limit: u32) -> PageParams {
        PageParams {
            page: None,
            limit: Some(limit.to_string()),
        }
    }

    /// Checks `page` ≥ 1 and `limit` in 1..=100 (DESIGN §6); defaults 1 and 20.
    pub fn parse(&self, errors: &mut Violations) -> PageQuery {
        let mut number =
            |field: &str, text: &Option<String>, default: u32, max: u32, message: &str| match text
                .as_deref()
                .map(str::trim)
            {
                None => default,
                Some(text) => match text.parse::<u32>() {
                    Ok(n) if (1..=max).contains(&n) => n,
                    _ => {
                        errors.add(field, message);
                        default
                    }
                },
            };
        let page = number(
            "page",
            &self.page,
            1,
            u32::MAX,
            "must be an integer of at least 1",
        );
        let limit = number(
            "limit",
            &self.limit,
            20,
            100,
            "must be an integer between 1 and 100",
        );
        PageQuery { page, limit }
    }
}

/// `PageParams::parse` for a list with no other parameters.
pub fn page_query(params: &PageParams) -> Result<PageQuery> {
    let mut errors = Violations::new();
    let page = params.parse(&mut errors);
    errors.finish()?;
    Ok(page)
}

/// An optional RFC 3339 query parameter, in the stored form.
pub fn instant_param(
    errors: &mut Violations,
    field: &str,
    value: Option<String>,
) -> Option<String> {
    let text = value?;
    match time::parse(&text) {
        Some(t) => Some(time::format(t)),
        None => {
            errors.add(
                field,
                "must be an RFC 3339 timestamp such as 2026-11-22T10:15:30Z",
            );
            None
        }
    }
}

/// An optional query parameter naming one value of `E` (`status=pending`).
pub fn enum_param<E: Copy>(
    errors: &mut Violations,
    field: &str,
    value: Option<String>,
    parse: fn(&str) -> Option<E>,
    names: fn() -> String,
) -> Option<E> {
    let text = value?;
    let parsed = parse(&text);
    if parsed.is_none() {
        errors.add(field, format!("must be one of {}", names()));
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    fn parse(
        page: Option<&str>,
        limit: Option<&str>,
    ) -> std::result::Result<PageQuery, Vec<String>> {
        let params = PageParams {
            page: page.map(Into::into),
            limit: limit.map(Into::into),
        };
        page_query(&params).map_err(|e| match e {
            Error::Validation(errors) => errors
                .into_iter()
                .map(|e| format!("{}: {}", e.field, e.message))
                .collect(),
            other => vec![other.to_string()],
        })
    }

    #[test]
    fn pages_default_to_one_and_twenty() {
        assert_eq!(parse(None, None), Ok(PageQuery { page: 1, limit: 20 }));
        assert_eq!(
            parse(Some("3"), Some("100")),
            Ok(PageQuery {
                page: 3,
                limit: 100
            })
        );
    }

    #[test]
    fn bad_pages_and_limits_are_named_in_plain_words() {
        for (page, limit, expected) in [
            (Some("0"), None, "page: must be an integer of at least 1"),
            (Some("abc"), None, "page: must be an integer of at least 1"),
            (
                None,
                Some("0"),
                "limit: must be an integer between 1 and 100",
            ),
            (
                None,
                Some("101"),
                "limit: must be an integer between 1 and 100",
            ),
            (
                None,
                Some("1.5"),
                "limit: must be an integer between 1 and 100",
            ),
            (
                None,
                Some("-1"),
                "limit: must be an integer between 1 and 100",
            ),
        ] {
            assert_eq!(parse(page, limit), Err(vec![expected.to_string()]));
        }
        assert_eq!(parse(Some("x"), Some("x")).map_err(|e| e.len()), Err(2));
    }
}
