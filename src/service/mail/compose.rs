//! One e-mail to a receiver as it goes out: the shop's name as the sender's, a plain-text part
//! and an HTML part of the same words in the shop's colour, the unsubscribe link in both and in
//! `List-Unsubscribe` (with RFC 8058 one-click), and the return label when there is one.

use lettre::{
    Message,
    message::{
        Attachment, Mailbox, MultiPart, SinglePart,
        header::{ContentType, Header, HeaderName, HeaderValue},
    },
};
use std::fmt::Write;

use minijinja::{AutoEscape, Environment, context};

use crate::model::{branding, locale::Catalogue};

/// What one e-mail says and to whom.
pub struct Letter {
    /// The notification's id (the Message-ID is made of it, so a retry is the same message).
    pub id: String,
    pub from: Mailbox,
    pub to: String,
    pub language: String,
    pub shop: String,
    /// `#rrggbb`.
    pub color: String,
    pub subject: String,
    pub text: String,
    /// The footer's sentence, rendered.
    pub footer: String,
    pub unsubscribe_url: String,
    pub tracking_url: Option<String>,
    /// The domain of the Message-ID.
    pub domain: String,
    /// A file name and a PDF.
    pub attachment: Option<(String, Vec<u8>)>,
}

/// The message, or why it cannot be made (an address that is not one).
pub fn build(letter: Letter, words: &Catalogue) -> Result<Message, String> {
    let to: Mailbox = letter
        .to
        .parse()
        .map_err(|_| format!("{:?} is not an e-mail address", letter.to))?;
    let plain = format!(
        "{}\n\n-- \n{}\n{}\n",
        letter.text.trim_end(),
        letter.footer,
        letter.unsubscribe_url
    );
    let html = html(&letter, words)?;
    let body = MultiPart::alternative()
        .singlepart(SinglePart::plain(plain))
        .singlepart(SinglePart::html(html));
    let body = match letter.attachment {
        Some((name, pdf)) => {
            MultiPart::mixed()
                .multipart(body)
                .singlepart(Attachment::new(name).body(
                    pdf,
                    ContentType::parse("application/pdf").map_err(|e| e.to_string())?,
                ))
        }
        None => body,
    };
    Message::builder()
        .from(letter.from)
        .to(to)
        .subject(letter.subject)
        .message_id(Some(format!("<{}@{}>", letter.id, letter.domain)))
        .header(ListUnsubscribe(format!("<{}>", letter.unsubscribe_url)))
        .header(ListUnsubscribePost)
        .header(AutoSubmitted)
        .multipart(body)
        .map_err(|e| e.to_string())
}

const TEMPLATE: &str = include_str!("message.html");

fn html(letter: &Letter, words: &Catalogue) -> Result<String, String> {
    let mut env = Environment::new();
    env.set_auto_escape_callback(|_| AutoEscape::Html);
    // Escape what HTML needs and no more: links stay readable to mail clients (`/` kept).
    env.set_formatter(|out, state, value| {
        if *state.auto_escape() != AutoEscape::None
            && !value.is_safe()
            && let Some(text) = value.as_str()
        {
            for c in text.chars() {
                match c {
                    '&' => out.write_str("&amp;"),
                    '<' => out.write_str("&lt;"),
                    '>' => out.write_str("&gt;"),
                    '"' => out.write_str("&quot;"),
                    '\'' => out.write_str("&#39;"),
                    c => out.write_char(c),
                }
                .map_err(|_| minijinja::Error::from(minijinja::ErrorKind::WriteFailure))?;
            }
            return Ok(());
        }
        minijinja::escape_formatter(out, state, value)
    });
    env.add_template("mail.html", TEMPLATE)
        .map_err(|e| e.to_string())?;
    // Paragraphs split at blank lines, each a list of lines (a line that is a link is one).
    let paragraphs: Vec<Vec<String>> = letter
        .text
        .split("\n\n")
        .map(|p| {
            p.lines()
                .map(|l| l.trim_end().to_string())
                .filter(|l| !l.is_empty())
                .collect()
        })
        .filter(|p: &Vec<String>| !p.is_empty())
        .collect();
    env.get_template("mail.html")
        .and_then(|t| {
            t.render(context! {
                language => letter.language.as_str(),
                subject => letter.subject.as_str(),
                shop => letter.shop.as_str(),
                color => letter.color.as_str(),
                ink => branding::text_on(&letter.color),
                paragraphs => paragraphs,
                tracking_url => letter.tracking_url.as_deref(),
                follow => words.get("mail_track"),
                footer => letter.footer.as_str(),
                unsubscribe => words.get("mail_unsubscribe"),
                unsubscribe_url => letter.unsubscribe_url.as_str(),
            })
        })
        .map_err(|e| e.to_string())
}

/// `List-Unsubscribe: <https://…/u/…>` (RFC 2369).
#[derive(Clone)]
struct ListUnsubscribe(String);

impl Header for ListUnsubscribe {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe")
    }

    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(ListUnsubscribe(s.to_string()))
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), self.0.clone())
    }
}

/// `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058): a POST to the link
/// unsubscribes without a page in between.
#[derive(Clone)]
struct ListUnsubscribePost;

impl Header for ListUnsubscribePost {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe-Post")
    }

    fn parse(_: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(ListUnsubscribePost)
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), "List-Unsubscribe=One-Click".into())
    }
}

/// `Auto-Submitted: auto-generated` (RFC 3834): no vacation replies to these.
#[derive(Clone)]
struct AutoSubmitted;

impl Header for AutoSubmitted {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("Auto-Submitted")
    }

    fn parse(_: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(AutoSubmitted)
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), "auto-generated".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::locale;

    fn letter() -> Letter {
        Letter {
            id: "ntf_01".into(),
            from: "Nordic Mugs <noreply@shop.example>"
                .parse()
                .unwrap_or_else(|e| panic!("{e}")),
            to: "kari@example.no".into(),
            language: "nb".into(),
            shop: "Nordic <Mugs>".into(),
            color: "#0b5fff".into(),
            subject: "Pakken er på vei".into(),
            text: "Hei,\n\npakken din er på vei:\nhttps://ship.example/t/abc\n".into(),
            footer: "Ingen flere slike e-poster:".into(),
            unsubscribe_url: "https://ship.example/u/ntf_01.tag".into(),
            tracking_url: Some("https://ship.example/t/abc".into()),
            domain: "shop.example".into(),
            attachment: None,
        }
    }

    #[test]
    fn a_message_has_both_parts_and_the_unsubscribe_headers() {
        let message = build(letter(), locale::catalogue("nb")).unwrap_or_else(|e| panic!("{e}"));
        let raw = String::from_utf8_lossy(&message.formatted()).into_owned();
        assert!(
            raw.contains("List-Unsubscribe: <https://ship.example/u/ntf_01.tag>"),
            "{raw}"
        );
        assert!(raw.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click"));
        assert!(raw.contains("Message-ID: <ntf_01@shop.example>"));
        assert!(raw.contains("multipart/alternative") && raw.contains("text/html"));
        // The shop's name is escaped in the HTML part.
        assert!(raw.contains("Nordic &lt;Mugs&gt;"), "{raw}");
    }

    #[test]
    fn a_bad_address_is_named() {
        let mut bad = letter();
        bad.to = "not an address".into();
        let err = build(bad, locale::catalogue("en"))
            .err()
            .unwrap_or_default();
        assert!(err.contains("not an e-mail address"), "{err}");
    }
}
