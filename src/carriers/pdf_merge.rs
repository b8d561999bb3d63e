//! Several PDF files as one, pages in order (batch printing, DESIGN §17), with lopdf: each
//! file's objects are renumbered past the previous ones, its pages hung under one page tree.

use std::collections::BTreeMap;

use lopdf::{Dictionary, Document, Object, ObjectId};

use crate::error::{Error, Result};

/// One PDF holding every page of `files`, in order.
pub fn merge(files: &[&[u8]]) -> Result<Vec<u8>> {
    let broken = |e: lopdf::Error| Error::Internal(format!("cannot merge a stored PDF: {e}"));
    let mut next_id = 1;
    let mut pages: Vec<(ObjectId, Dictionary)> = Vec::new();
    let mut objects: BTreeMap<ObjectId, Object> = BTreeMap::new();
    for file in files {
        let mut doc = Document::load_mem(file).map_err(broken)?;
        doc.renumber_objects_with(next_id);
        next_id = doc.max_id + 1;
        for id in doc.get_pages().into_values() {
            let page = doc.get_dictionary(id).map_err(broken)?.clone();
            pages.push((id, page));
        }
        objects.extend(doc.objects);
    }
    let tree_id = (next_id, 0);
    let catalog_id = (next_id + 1, 0);
    let mut out = Document::with_version("1.4");
    for (id, object) in objects {
        // The sources' catalogs and page trees are replaced by one of each.
        let kind = object
            .as_dict()
            .ok()
            .and_then(|d| d.get(b"Type").ok())
            .and_then(|t| t.as_name().ok());
        if matches!(kind, Some(b"Catalog") | Some(b"Pages")) {
            continue;
        }
        out.objects.insert(id, object);
    }
    let kids: Vec<Object> = pages.iter().map(|(id, _)| Object::Reference(*id)).collect();
    let count = i64::try_from(pages.len()).unwrap_or(i64::MAX);
    for (id, mut page) in pages {
        page.set("Parent", Object::Reference(tree_id));
        out.objects.insert(id, Object::Dictionary(page));
    }
    out.objects.insert(
        tree_id,
        Object::Dictionary(Dictionary::from_iter([
            ("Type", Object::Name(b"Pages".to_vec())),
            ("Kids", Object::Array(kids)),
            ("Count", Object::Integer(count)),
        ])),
    );
    out.objects.insert(
        catalog_id,
        Object::Dictionary(Dictionary::from_iter([
            ("Type", Object::Name(b"Catalog".to_vec())),
            ("Pages", Object::Reference(tree_id)),
        ])),
    );
    out.trailer.set("Root", Object::Reference(catalog_id));
    out.max_id = next_id + 1;
    let mut bytes = Vec::new();
    out.save_to(&mut bytes)
        .map_err(|e| Error::Internal(format!("cannot write the merged PDF: {e}")))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::carriers::label::{LabelInput, LabelSize, render};

    fn label(tracking: &str, size: LabelSize) -> Vec<u8> {
        let input = LabelInput {
            tracking_number: tracking.into(),
            parcel_index: 1,
            parcel_count: 1,
            ..LabelInput::default()
        };
        render(&input, size).unwrap_or_default()
    }

    #[test]
    fn pages_come_in_the_order_given_with_their_text() {
        let files = [
            label("SBX1", LabelSize::A4),
            label("SBX2", LabelSize::Label100x150),
            label("SBX3", LabelSize::A4),
        ];
        let refs: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
        let merged = merge(&refs).unwrap_or_default();
        let doc = Document::load_mem(&merged).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(doc.get_pages().len(), 3);
        for (n, number) in ["SBX1", "SBX2", "SBX3"].iter().enumerate() {
            let page = u32::try_from(n + 1).unwrap_or(0);
            let text = doc.extract_text(&[page]).unwrap_or_default();
            assert!(text.contains(number), "page {page}: {text:?}");
        }
    }

    #[test]
    fn a_broken_file_is_an_error() {
        assert!(merge(&[b"not a pdf".as_slice()]).is_err());
    }
}
