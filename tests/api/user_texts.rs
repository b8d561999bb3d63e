//! What a user reads names no part of the contract the code is built from: the OpenAPI document
//! (its descriptions are what Swagger UI, SDK generators and agents show) and every command's
//! `--help` speak of the product, never of "SPEC", "DESIGN" or a section sign.

use crate::helpers::TestApp;

/// The contract references `text` holds, with a little context each.
fn references(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for needle in ["SPEC", "DESIGN", "§"] {
        for (at, _) in text.match_indices(needle) {
            let start = text[..at]
                .char_indices()
                .rev()
                .nth(40)
                .map_or(0, |(i, _)| i);
            let end = text[at..]
                .char_indices()
                .nth(40)
                .map_or(text.len(), |(i, _)| at + i);
            found.push(text[start..end].to_string());
        }
    }
    found
}

#[tokio::test]
async fn the_openapi_document_names_no_contract_sections() {
    let app = TestApp::spawn().await;
    let document = reqwest::get(app.url("/openapi.json"))
        .await
        .expect("openapi")
        .text()
        .await
        .expect("text");
    assert!(document.contains("\"paths\""), "{document}");
    assert_eq!(references(&document), Vec::<String>::new());
}

/// The commands `help` lists (the lines under "Commands:").
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

#[tokio::test]
async fn no_commands_help_names_contract_sections() {
    let app = TestApp::spawn().await;
    let help = |args: &[&str]| {
        let mut args = args.to_vec();
        args.push("--help");
        let out = app.cli(&args);
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let top = help(&[]);
    let mut read = vec![(String::from("shipbase"), top.clone())];
    let nouns = commands(&top);
    assert!(nouns.len() >= 5, "{top}");
    for noun in &nouns {
        let text = help(&[noun]);
        for verb in commands(&text) {
            read.push((format!("{noun} {verb}"), help(&[noun, &verb])));
        }
        read.push((noun.clone(), text));
    }
    for (command, text) in read {
        assert_eq!(
            references(&text),
            Vec::<String>::new(),
            "shipbase {command} --help"
        );
    }
}
