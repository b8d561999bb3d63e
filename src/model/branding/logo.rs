//! A logo as a request sends it: base64 (or a base64 `data:` URL) of a PNG or an SVG, read,
//! checked and, for SVG, rewritten by the whitelist of `svg`.

use base64::{
    Engine, alphabet,
    engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig},
};

use crate::model::branding::{LogoType, MAX_LOGO_BYTES, NOT_AN_IMAGE, svg};

/// A logo ready to store: its type and bytes (an SVG already sanitized).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Logo {
    pub logo_type: LogoType,
    pub bytes: Vec<u8>,
}

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Width and height a PNG logo may have at most, in pixels.
pub const MAX_PNG_SIDE: u32 = 8192;

/// Reads a logo from its text in a request; the error is a message that follows the field's
/// name ("logo must be base64 …").
pub fn parse(text: &str) -> Result<Logo, String> {
    let encoded = strip_data_url(text.trim())?;
    let encoded: String = encoded
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    if encoded.is_empty() {
        return Err("must not be empty; send null to remove the logo".into());
    }
    // Base64 is 4 characters for 3 bytes: a text this long decodes to more than the limit.
    if encoded.len() > MAX_LOGO_BYTES.div_ceil(3) * 4 + 4 {
        return Err(too_large(encoded.len() / 4 * 3));
    }
    let bytes = decode(&encoded)
        .ok_or("must be base64 (the standard or the URL-safe alphabet) of a PNG or SVG image")?;
    if bytes.len() > MAX_LOGO_BYTES {
        return Err(too_large(bytes.len()));
    }
    if bytes.starts_with(PNG_SIGNATURE) {
        check_png(&bytes)?;
        return Ok(Logo {
            logo_type: LogoType::Png,
            bytes,
        });
    }
    let Some(markup) = std::str::from_utf8(&bytes)
        .ok()
        .map(|t| t.trim_start_matches('\u{feff}'))
        .filter(|t| t.trim_start().starts_with('<'))
    else {
        return Err(NOT_AN_IMAGE.into());
    };
    Ok(Logo {
        logo_type: LogoType::Svg,
        bytes: svg::sanitize(markup)?.into_bytes(),
    })
}

fn too_large(bytes: usize) -> String {
    format!(
        "must be at most 256 KB ({MAX_LOGO_BYTES} bytes) once decoded; this one is {bytes} bytes"
    )
}

/// The base64 of a `data:image/png;base64,…` or `data:image/svg+xml;base64,…` URL; other text
/// as it is.
fn strip_data_url(text: &str) -> Result<&str, String> {
    let Some((head, body)) = text
        .get(..5)
        .filter(|scheme| scheme.eq_ignore_ascii_case("data:"))
        .and_then(|_| text.split_once(','))
    else {
        return Ok(text);
    };
    let head = head.to_ascii_lowercase();
    if head == "data:image/png;base64" || head == "data:image/svg+xml;base64" {
        Ok(body)
    } else {
        Err("as a data: URL must be data:image/png;base64,… or data:image/svg+xml;base64,…".into())
    }
}

fn decode(encoded: &str) -> Option<Vec<u8>> {
    let config =
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    [alphabet::STANDARD, alphabet::URL_SAFE]
        .iter()
        .find_map(|alphabet| GeneralPurpose::new(alphabet, config).decode(encoded).ok())
}

/// Checks that the bytes are a PNG by reading its header and the chunks before the image data
/// (their checksums too), and that its size is one a logo may have.
fn check_png(bytes: &[u8]) -> Result<(), String> {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let reader = decoder
        .read_info()
        .map_err(|err| format!("is not a readable PNG: {err}"))?;
    let info = reader.info();
    if info.width > MAX_PNG_SIDE || info.height > MAX_PNG_SIDE {
        return Err(format!(
            "must be at most {MAX_PNG_SIDE} pixels wide and high; this PNG is {}×{}",
            info.width, info.height
        ));
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use base64::engine::general_purpose::STANDARD;

    use super::*;

    /// A PNG of `width` × `height` gray pixels.
    pub(crate) fn png(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, width, height);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap_or_else(|e| panic!("{e}"));
        let pixels = vec![0x80; (width * height) as usize];
        writer
            .write_image_data(&pixels)
            .unwrap_or_else(|e| panic!("{e}"));
        drop(writer);
        bytes
    }

    #[test]
    fn a_png_is_kept_as_it_is_in_any_base64_spelling() {
        let image = png(3, 2);
        let plain = STANDARD.encode(&image);
        let wrapped = plain
            .as_bytes()
            .chunks(8)
            .map(|c| std::str::from_utf8(c).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        for text in [
            plain.clone(),
            wrapped,
            plain.trim_end_matches('=').to_string(),
            format!("data:image/png;base64,{plain}"),
        ] {
            let logo = parse(&text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(logo.logo_type, LogoType::Png);
            assert_eq!(logo.bytes, image);
        }
    }

    #[test]
    fn a_broken_or_huge_png_and_other_files_are_refused() {
        let mut broken = png(3, 2);
        broken[20] ^= 0xff; // inside IHDR: its checksum no longer matches
        assert!(
            parse(&STANDARD.encode(&broken))
                .unwrap_err()
                .contains("not a readable PNG")
        );
        assert!(
            parse(&STANDARD.encode(PNG_SIGNATURE))
                .unwrap_err()
                .contains("not a readable PNG")
        );
        let wide = png(MAX_PNG_SIDE + 1, 1);
        assert!(parse(&STANDARD.encode(&wide)).unwrap_err().contains("8192"));
        let gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;";
        assert_eq!(parse(&STANDARD.encode(gif)).unwrap_err(), NOT_AN_IMAGE);
        assert_eq!(
            parse(&STANDARD.encode("just some words")).unwrap_err(),
            NOT_AN_IMAGE
        );
        assert!(parse("not base64 at all!").unwrap_err().contains("base64"));
        assert!(parse("  ").unwrap_err().contains("null"));
        assert!(
            parse("data:image/gif;base64,R0lGOD")
                .unwrap_err()
                .contains("data:")
        );
        let big = vec![b' '; MAX_LOGO_BYTES + 1];
        assert!(
            parse(&STANDARD.encode(&big))
                .unwrap_err()
                .contains("256 KB")
        );
    }

    #[test]
    fn an_svg_is_stored_sanitized() {
        let svg =
            r#"<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1"/></svg>"#;
        let logo = parse(&STANDARD.encode(svg)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(logo.logo_type, LogoType::Svg);
        assert_eq!(
            String::from_utf8(logo.bytes).unwrap_or_default(),
            r#"<svg xmlns="http://www.w3.org/2000/svg"><rect width="1"/></svg>"#
        );
    }
}
