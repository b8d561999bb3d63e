//! Did-you-mean: the known name closest in spelling to one that is not known.

/// A known field close in spelling to `unknown`: at most two edits away (one for short
/// names), or one containing the other.
pub fn suggestion<'a>(unknown: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let lower = unknown.to_lowercase();
    known
        .map(|name| (name, distance(&lower, &name.to_lowercase())))
        .filter(|(name, d)| {
            let budget = if name.len() <= 4 { 1 } else { 2 };
            let contains = name.len() >= 4
                && (lower.contains(&name.to_lowercase()) || name.to_lowercase().contains(&lower));
            *d <= budget || contains
        })
        .min_by_key(|(_, d)| *d)
        .map(|(name, _)| name)
}

/// Levenshtein distance in characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != *cb);
            current.push(substitute.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_need_a_close_spelling() {
        let known = ["address2", "zipcode", "name"];
        assert_eq!(suggestion("adress2", known.into_iter()), Some("address2"));
        assert_eq!(suggestion("zip", known.into_iter()), Some("zipcode"));
        assert_eq!(suggestion("colour", known.into_iter()), None);
        assert_eq!(suggestion("nmae", known.into_iter()), None);
        assert_eq!(suggestion("names", known.into_iter()), Some("name"));
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
