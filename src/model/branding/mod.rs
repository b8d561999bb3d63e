//! An organization's branding: the name, color and logo its customers see on the
//! tracking page, in notification e-mails and on the returns portal.

use poem_openapi::{
    Object,
    types::{Base64, MaybeUndefined},
};
use serde::Deserialize;

use crate::{error::Error, model::validate::Violations};

pub mod logo;
pub mod svg;

pub use logo::Logo;

/// The color until one is set: a neutral dark gray that white text reads well on.
pub const DEFAULT_COLOR: &str = "#374151";

/// How long a display name may be, in characters.
pub const MAX_DISPLAY_NAME: usize = 100;

/// How large a logo may be once decoded (256 KB).
pub const MAX_LOGO_BYTES: usize = 256 * 1024;

/// The message for a logo that is neither a PNG nor an SVG.
pub const NOT_AN_IMAGE: &str = "must be a PNG or an SVG image";

crate::string_enum! {
    /// The media type of a logo.
    LogoType {
        Png = "image/png",
        Svg = "image/svg+xml",
    }
}

/// An organization's branding. An organization that never set it shows its own name, the
/// neutral color `#374151` and no logo.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Branding {
    /// The name customers see; the organization's name until one is set.
    pub display_name: String,
    /// The brand color as `#rrggbb` in lower case.
    pub color: String,
    /// The logo file, base64-encoded (an SVG as stored: sanitized); null when there is none.
    pub logo: Option<Base64<Vec<u8>>>,
    /// The logo's media type, `image/png` or `image/svg+xml`; null when there is no logo.
    pub logo_type: Option<LogoType>,
    /// When the branding was last changed; null until it is first set.
    pub updated_at: Option<String>,
}

/// What to change of the branding. A field left out keeps its value; `null` puts it back to its
/// default (the organization's name, the neutral color, no logo). The answer of GET may be sent
/// back as it is: its read-only fields are ignored.
#[derive(Clone, Debug, Default, Deserialize, Object)]
#[serde(rename_all = "camelCase", default)]
#[oai(rename_all = "camelCase")]
pub struct BrandingIn {
    /// 1 to 100 characters on one line; spaces around it are dropped.
    #[oai(validator(max_length = 100))]
    pub display_name: MaybeUndefined<String>,
    /// `#rrggbb`, such as `#1a73e8`.
    #[oai(validator(pattern = "^#[0-9a-fA-F]{6}$"))]
    pub color: MaybeUndefined<String>,
    /// A PNG or SVG image, base64-encoded (a `data:image/png;base64,` or
    /// `data:image/svg+xml;base64,` URL is taken too), at most 256 KB decoded; a PNG at most
    /// 8192 pixels wide and high. An SVG is stored sanitized: only drawing elements and
    /// attributes are kept (no script, event attributes, links, foreignObject, DOCTYPE or
    /// entities), references only inside the document (`#id`, or an embedded PNG or JPEG image).
    pub logo: MaybeUndefined<String>,
    /// Read-only: read from the logo itself; whatever is sent here is ignored.
    #[oai(read_only)]
    pub logo_type: Option<LogoType>,
    /// Read-only: whatever is sent here is ignored.
    #[oai(read_only)]
    pub updated_at: Option<String>,
}

/// A change to the branding once checked: for each field, None to keep it, Some(None) to put
/// it back to its default, Some(Some(value)) to set it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BrandingChange {
    pub display_name: Option<Option<String>>,
    pub color: Option<Option<String>>,
    pub logo: Option<Option<Logo>>,
}

impl BrandingIn {
    /// Checks every field (all problems at once) and reads the logo.
    pub fn check(self) -> Result<BrandingChange, Error> {
        let mut errors = Violations::new();
        let display_name = settle(self.display_name, |name| {
            let name = name.trim();
            if name.chars().any(char::is_control) {
                errors.add(
                    "displayName",
                    "must be one line, without control characters",
                );
            }
            errors.length("displayName", name, 1, MAX_DISPLAY_NAME);
            name.to_string()
        });
        let color = settle(self.color, |color| {
            if !is_color(&color) {
                errors.add("color", "must be a color as #rrggbb, such as #1a73e8");
            }
            color.to_ascii_lowercase()
        });
        let logo = match self.logo {
            MaybeUndefined::Undefined => None,
            MaybeUndefined::Null => Some(None),
            MaybeUndefined::Value(text) => match logo::parse(&text) {
                Ok(logo) => Some(Some(logo)),
                Err(message) => {
                    errors.add("logo", message);
                    None
                }
            },
        };
        errors.finish()?;
        Ok(BrandingChange {
            display_name,
            color,
            logo,
        })
    }
}

fn settle(
    value: MaybeUndefined<String>,
    check: impl FnOnce(String) -> String,
) -> Option<Option<String>> {
    match value {
        MaybeUndefined::Undefined => None,
        MaybeUndefined::Null => Some(None),
        MaybeUndefined::Value(value) => Some(Some(check(value))),
    }
}

/// `#rrggbb`, in either case.
pub fn is_color(text: &str) -> bool {
    text.len() == 7 && text.starts_with('#') && text[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

/// The branding as stored for an organization: None for what was never set (or was put back
/// to its default).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stored {
    pub display_name: Option<String>,
    pub color: Option<String>,
    pub logo: Option<Logo>,
    pub updated_at: Option<String>,
}

impl Stored {
    /// `change` applied.
    pub fn with(mut self, change: BrandingChange, now: &str) -> Stored {
        if let Some(name) = change.display_name {
            self.display_name = name;
        }
        if let Some(color) = change.color {
            self.color = color;
        }
        if let Some(logo) = change.logo {
            self.logo = logo;
        }
        self.updated_at = Some(now.to_string());
        self
    }

    /// The branding as shown, its defaults filled in (`org_name` for the display name).
    pub fn shown(self, org_name: &str) -> Branding {
        let (logo, logo_type) = match self.logo {
            Some(logo) => (Some(Base64(logo.bytes)), Some(logo.logo_type)),
            None => (None, None),
        };
        Branding {
            display_name: self.display_name.unwrap_or_else(|| org_name.to_string()),
            color: self.color.unwrap_or_else(|| DEFAULT_COLOR.to_string()),
            logo,
            logo_type,
            updated_at: self.updated_at,
        }
    }
}

/// Black or white, whichever reads better on `color` (`#rrggbb`), by WCAG contrast.
pub fn text_on(color: &str) -> &'static str {
    let channel = |at: usize| {
        let value = color
            .get(at..at + 2)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .unwrap_or(0);
        let c = f64::from(value) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
    // Contrast with white (1.05 / (L + 0.05)) against contrast with black ((L + 0.05) / 0.05).
    if 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.05 {
        "#ffffff"
    } else {
        "#111111"
    }
}

#[cfg(test)]
mod tests {
    use base64::{Engine, engine::general_purpose::STANDARD};
    use serde_json::json;

    use super::*;
    use crate::service::decode_value;

    fn check(body: serde_json::Value) -> Result<BrandingChange, Vec<(String, String)>> {
        let input: BrandingIn = decode_value(body).unwrap_or_else(|e| panic!("{e:?}"));
        input.check().map_err(|err| match err {
            Error::Validation(errors) => errors.into_iter().map(|e| (e.field, e.message)).collect(),
            other => panic!("{other:?}"),
        })
    }

    #[test]
    fn every_field_is_checked_at_once() {
        let errors =
            check(json!({"displayName": " ", "color": "red", "logo": "R0lGODlhAQABAAAAACw="}))
                .unwrap_err();
        let fields: Vec<&str> = errors.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(fields, ["displayName", "color", "logo"]);
        let errors = check(json!({"displayName": "Acme\nInc", "color": "#12345"})).unwrap_err();
        assert_eq!(errors.len(), 2, "{errors:?}");
    }

    #[test]
    fn left_out_keeps_null_resets_and_a_value_sets() {
        let png = STANDARD.encode(logo::tests::png(1, 1));
        let change = check(json!({"displayName": "  Acme  ", "color": "#1A73E8", "logo": png}))
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(change.display_name, Some(Some("Acme".into())));
        assert_eq!(change.color, Some(Some("#1a73e8".into())));
        let stored = Stored::default().with(change, "2026-11-26T10:00:00.000Z");
        let shown = stored.clone().shown("Org");
        assert_eq!(shown.display_name, "Acme");
        assert_eq!(shown.logo_type, Some(LogoType::Png));

        let kept = check(json!({"color": null})).unwrap_or_else(|e| panic!("{e:?}"));
        let shown = stored.with(kept, "2026-11-26T11:00:00.000Z").shown("Org");
        assert_eq!(shown.display_name, "Acme");
        assert_eq!(shown.color, DEFAULT_COLOR);
        assert!(shown.logo.is_some());
        assert_eq!(Stored::default().shown("Org").display_name, "Org");
    }

    #[test]
    fn text_is_white_on_dark_and_black_on_light_colours() {
        assert_eq!(text_on("#374151"), "#ffffff");
        assert_eq!(text_on("#0b5fff"), "#ffffff");
        assert_eq!(text_on("#ffd400"), "#111111");
        assert_eq!(text_on("#ffffff"), "#111111");
    }
}
