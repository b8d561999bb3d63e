//! SVG logos made safe to show anywhere: the document is parsed (roxmltree) and written anew
//! (quick-xml's writer escapes every value) with only the drawing elements and attributes of a
//! whitelist. Nothing that runs or loads survives: no script, event attribute, link,
//! foreignObject, animation, DOCTYPE or entity, and no reference out of the document: `href`
//! only to `#id` (or, on `<image>`, to an embedded PNG or JPEG), CSS only with harmless
//! functions, `url(#id)` among them, and no at-rules (`@import`).

use std::borrow::Cow;

use quick_xml::{
    Writer,
    escape::partial_escape,
    events::{BytesEnd, BytesStart, BytesText, Event},
};
use roxmltree::{Document, Node, ParsingOptions};

const SVG_NS: &str = "http://www.w3.org/2000/svg";
const XLINK_NS: &str = "http://www.w3.org/1999/xlink";
const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

/// How deep elements may nest (logos need a handful of levels).
const MAX_DEPTH: usize = 64;

// The whitelists are words separated by white space.

/// Elements kept, with the allowed ones among their descendants.
const ELEMENTS: &str = "svg g defs symbol use title desc switch path rect circle ellipse line
    polyline polygon text tspan textPath image style linearGradient radialGradient stop clipPath
    mask pattern marker filter feBlend feColorMatrix feComponentTransfer feFuncR feFuncG feFuncB
    feFuncA feComposite feDropShadow feFlood feGaussianBlur feMerge feMergeNode feMorphology
    feOffset";

/// Elements dropped while their allowed children are kept (a link's drawing stays, the link goes).
const UNWRAPPED: &str = "a";

/// Elements whose text is content (the rest only hold whitespace between elements).
const WITH_TEXT: &str = "title desc text tspan textPath style";

/// Attributes kept (besides `href` and `xml:space`), each value still checked by `css_is_safe`.
const ATTRIBUTES: &str = "id class style transform d x y x1 y1 x2 y2 cx cy r rx ry fx fy fr
    width height viewBox preserveAspectRatio points pathLength version fill fill-opacity
    fill-rule stroke stroke-width stroke-linecap stroke-linejoin stroke-miterlimit
    stroke-dasharray stroke-dashoffset stroke-opacity opacity clip-path clip-rule clipPathUnits
    mask maskUnits maskContentUnits color display visibility overflow vector-effect
    shape-rendering text-rendering image-rendering paint-order color-interpolation
    color-interpolation-filters mix-blend-mode isolation font-family font-size font-weight
    font-style font-variant font-stretch text-anchor dominant-baseline alignment-baseline
    baseline-shift letter-spacing word-spacing text-decoration writing-mode dx dy rotate
    textLength lengthAdjust startOffset method spacing side offset stop-color stop-opacity
    gradientUnits gradientTransform spreadMethod patternUnits patternContentUnits
    patternTransform marker-start marker-mid marker-end markerWidth markerHeight markerUnits
    refX refY orient filter filterUnits primitiveUnits in in2 result stdDeviation mode operator
    k1 k2 k3 k4 values type tableValues slope intercept amplitude exponent flood-color
    flood-opacity radius media";

/// CSS functions allowed in style sheets and attribute values; `url` only as `url(#id)`.
const CSS_FUNCTIONS: &str = "url rgb rgba hsl hsla hwb lab lch oklab oklch calc min max clamp
    var translate translatex translatey rotate scale scalex scaley skew skewx skewy matrix";

fn listed(list: &str, name: &str) -> bool {
    list.split_ascii_whitespace().any(|word| word == name)
}

/// Embedded images an `<image>` may show.
const DATA_IMAGES: &[&str] = &["data:image/png;base64,", "data:image/jpeg;base64,"];

/// The whitelisted rewrite of `text`, or why it is no SVG logo (a sentence that follows the
/// field's name: "logo is not a well-formed SVG: …").
pub fn sanitize(text: &str) -> Result<String, String> {
    // Entities are refused before parsing: the expansion of nested entities is what makes a
    // small document huge. A DOCTYPE without them is read and left out.
    if text.contains("<!ENTITY") {
        return Err("is an SVG that declares entities, which logos may not".into());
    }
    let options = ParsingOptions {
        allow_dtd: true,
        nodes_limit: 1 << 16,
        ..ParsingOptions::default()
    };
    let document = Document::parse_with_options(text, options)
        .map_err(|err| format!("is not a well-formed SVG: {err}"))?;
    let root = document.root_element();
    if !is_svg(root) || root.tag_name().name() != "svg" {
        return Err(super::NOT_AN_IMAGE.into());
    }
    let mut out = Writer::new(Vec::with_capacity(text.len()));
    write_element(&mut out, root, 0)?;
    String::from_utf8(out.into_inner()).map_err(|_| "is not UTF-8".to_string())
}

fn is_svg(node: Node) -> bool {
    matches!(node.tag_name().namespace(), None | Some(SVG_NS))
}

fn write_element(out: &mut Writer<Vec<u8>>, node: Node, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "is an SVG nested more than {MAX_DEPTH} elements deep"
        ));
    }
    let name = node.tag_name().name();
    if !is_svg(node) {
        return Ok(());
    }
    if listed(UNWRAPPED, name) {
        return write_children(out, node, depth);
    }
    if !listed(ELEMENTS, name) {
        return Ok(());
    }
    let text: String = node
        .children()
        .filter(|c| c.is_text())
        .filter_map(|c| c.text())
        .collect();
    if name == "style" && !css_is_safe(&text) {
        return Ok(());
    }
    let mut start = BytesStart::new(name);
    if depth == 0 {
        start.push_attribute(("xmlns", SVG_NS));
    }
    let mut has_href = false;
    for attribute in node.attributes() {
        if let Some((key, value)) = kept_attribute(name, &attribute) {
            if key == "href" {
                if has_href {
                    continue;
                }
                has_href = true;
            }
            start.push_attribute((key, value));
        }
    }
    let empty = node.children().all(|c| !c.is_element()) && text.trim().is_empty();
    if empty {
        return write(out, Event::Empty(start));
    }
    write(out, Event::Start(start))?;
    if listed(WITH_TEXT, name) {
        // Text and child elements in document order (`<text>a<tspan>b</tspan>c</text>`).
        for child in node.children() {
            if let Some(text) = child.text().filter(|_| child.is_text()) {
                let escaped = partial_escape(text);
                write(out, Event::Text(BytesText::from_escaped(escaped)))?;
            } else if child.is_element() {
                write_element(out, child, depth + 1)?;
            }
        }
    } else {
        write_children(out, node, depth)?;
    }
    write(out, Event::End(BytesEnd::new(name)))
}

fn write_children(out: &mut Writer<Vec<u8>>, node: Node, depth: usize) -> Result<(), String> {
    for child in node.children().filter(|c| c.is_element()) {
        write_element(out, child, depth + 1)?;
    }
    Ok(())
}

fn write(out: &mut Writer<Vec<u8>>, event: Event) -> Result<(), String> {
    out.write_event(event)
        .map_err(|err| format!("could not be written again: {err}"))
}

/// The attribute as written out (`xlink:href` becomes `href`), or None when it goes.
fn kept_attribute<'a>(
    element: &str,
    attribute: &roxmltree::Attribute<'a, 'a>,
) -> Option<(&'a str, &'a str)> {
    let (name, value) = (attribute.name(), attribute.value());
    let keep = match (attribute.namespace(), name) {
        (None | Some(XLINK_NS), "href") => {
            return href_is_safe(element, value).then_some(("href", value));
        }
        (Some(XML_NS), "space") => return Some(("xml:space", value)),
        (None, _) => listed(ATTRIBUTES, name) && css_is_safe(value),
        _ => false,
    };
    keep.then_some((name, value))
}

/// `#id` anywhere; on `<image>` also an embedded PNG or JPEG.
fn href_is_safe(element: &str, value: &str) -> bool {
    let value = value.trim();
    if let Some(id) = value.strip_prefix('#') {
        return !id.is_empty() && !id.contains(|c: char| c.is_whitespace() || c == '(');
    }
    element == "image"
        && DATA_IMAGES.iter().any(|prefix| {
            value.len() > prefix.len()
                && value.is_char_boundary(prefix.len())
                && value[..prefix.len()].eq_ignore_ascii_case(prefix)
                && value[prefix.len()..].bytes().all(|b| {
                    b.is_ascii_alphanumeric() || b"+/=".contains(&b) || b.is_ascii_whitespace()
                })
        })
}

/// Whether CSS text (a style sheet, a `style` attribute or a presentation attribute's value)
/// loads and runs nothing: no escapes or at-rules, and only harmless functions, `url()` only
/// into the document.
pub fn css_is_safe(css: &str) -> bool {
    let lower: Cow<str> = if css.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(css.to_ascii_lowercase())
    } else {
        Cow::Borrowed(css)
    };
    if lower.contains(['\\', '@']) {
        return false;
    }
    lower.match_indices('(').all(|(at, _)| {
        let before = &lower[..at];
        let start = before
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .last()
            .map_or(at, |(i, _)| i);
        match &before[start..] {
            "" => true,
            "url" => lower[at + 1..]
                .trim_start()
                .trim_start_matches(['"', '\''])
                .starts_with('#'),
            name => listed(CSS_FUNCTIONS, name),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(text: &str) -> String {
        sanitize(text).unwrap_or_else(|e| panic!("{e}: {text}"))
    }

    #[test]
    fn drawing_survives_and_everything_that_runs_or_loads_goes() {
        let svg = r##"<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     viewBox="0 0 100 100" onload="alert(1)" width="100">
  <script>alert(2)</script>
  <defs><linearGradient id="g"><stop offset="0" stop-color="#ff0000"/></linearGradient></defs>
  <a href="javascript:alert(3)"><circle cx="50" cy="50" r="40" fill="url(#g)" onclick="x()"/></a>
  <foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">hi</div></foreignObject>
  <use xlink:href="#g"/><use href="https://evil.example/sprite.svg#a"/>
  <image href="http://evil.example/x.png"/><image xlink:href="data:image/png;base64,iVBORw0KGgo="/>
  <set attributeName="href" to="javascript:alert(4)"/>
  <rect width="10" height="10" style="fill: url(http://evil.example/p)"/>
  <rect width="5" height="5" style="fill: rgb(1, 2, 3)" FILL="red"/>
  <style>@import url(https://evil.example/x.css); .a{fill:red}</style>
  <style>.b { fill: url( '#g' ) } .c > .d { stroke: #000 }</style>
  <text x="1" y="2">Acme &amp; Co <tspan>&lt;b&gt;</tspan></text>
</svg>"##;
        let out = clean(svg);
        for gone in [
            "script",
            "alert",
            "onload",
            "onclick",
            "javascript",
            "foreignObject",
            "evil",
            "<a",
            "xhtml",
            "@import",
            "<set",
            "FILL",
            "xlink",
        ] {
            assert!(!out.contains(gone), "{gone} in {out}");
        }
        for kept in [
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="100">"#,
            r#"<circle cx="50" cy="50" r="40" fill="url(#g)"/>"#,
            r##"<use href="#g"/>"##,
            r#"<image href="data:image/png;base64,iVBORw0KGgo="/>"#,
            r#"<rect width="5" height="5" style="fill: rgb(1, 2, 3)"/>"#,
            r##"<stop offset="0" stop-color="#ff0000"/>"##,
            ".c &gt; .d",
            "<text x=\"1\" y=\"2\">Acme &amp; Co <tspan>&lt;b&gt;</tspan></text>",
        ] {
            assert!(out.contains(kept), "{kept} missing from {out}");
        }
        // What comes out is itself well-formed, and a second pass changes nothing.
        assert_eq!(clean(&out), out);
    }

    #[test]
    fn entities_are_refused_and_a_plain_doctype_is_left_out() {
        let bomb = r#"<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]>
<svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>"#;
        assert!(sanitize(bomb).unwrap_err().contains("entities"));
        let illustrator = r#"<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg version="1.1" xmlns="http://www.w3.org/2000/svg"><path d="M0 0L10 10"/></svg>"#;
        assert_eq!(
            clean(illustrator),
            r#"<svg xmlns="http://www.w3.org/2000/svg" version="1.1"><path d="M0 0L10 10"/></svg>"#
        );
    }

    #[test]
    fn what_is_no_svg_is_refused() {
        assert!(
            sanitize("<svg><g></svg>")
                .unwrap_err()
                .contains("well-formed")
        );
        assert_eq!(
            sanitize("<html xmlns=\"http://www.w3.org/1999/xhtml\"/>").unwrap_err(),
            super::super::NOT_AN_IMAGE
        );
        let deep = format!("<svg>{}{}</svg>", "<g>".repeat(100), "</g>".repeat(100));
        assert!(sanitize(&deep).unwrap_err().contains("deep"));
    }

    #[test]
    fn css_may_only_point_into_the_document() {
        for safe in [
            "fill: url(#a)",
            "fill:url( \"#a\" )",
            "transform: translate(1px, 2px) rotate(3deg)",
            "font-family: 'Open Sans', sans-serif",
            "M0 0 L10 10",
        ] {
            assert!(css_is_safe(safe), "{safe}");
        }
        for unsafe_ in [
            "fill: url(https://x.example/a)",
            "fill: URL(//x.example/a)",
            "@import 'x.css'",
            "background: image-set('https://x.example/a.png' 1x)",
            "fill: u\\72l(http://x)",
            "width: expression(alert(1))",
            "fill: url(javascript:alert(1))",
        ] {
            assert!(!css_is_safe(unsafe_), "{unsafe_}");
        }
    }
}
