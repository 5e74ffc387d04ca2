//! "Did you mean" hints: the closest of a few known words to a misspelt one.

/// Words longer than this (in characters) get no suggestion: the known words are short, and the
/// distance is computed on the stack.
const MAX_CHARS: usize = 64;

/// The characters of `s` into `buf`, or `None` when it has more than [`MAX_CHARS`].
fn chars_of<'b>(s: &str, buf: &'b mut [char; MAX_CHARS]) -> Option<&'b [char]> {
    let mut n = 0;
    for c in s.chars() {
        *buf.get_mut(n)? = c.to_ascii_lowercase();
        n += 1;
    }
    Some(&buf[..n])
}

/// The optimal string alignment distance of `a` and `b` (Levenshtein's insertions, deletions and
/// substitutions, and swaps of two adjacent characters, so `abuot` is 1 from `about`), ASCII
/// case ignored; `None` when it is above `limit` or a word is too long. No allocation.
pub(crate) fn distance(a: &str, b: &str, limit: usize) -> Option<usize> {
    let (mut ab, mut bb) = (['\0'; MAX_CHARS], ['\0'; MAX_CHARS]);
    let (a, b) = (chars_of(a, &mut ab)?, chars_of(b, &mut bb)?);
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    // Three rows of the table: i-2, i-1, i.
    let mut rows = [[0usize; MAX_CHARS + 1]; 3];
    for (j, cell) in rows[1].iter_mut().enumerate().take(b.len() + 1) {
        *cell = j;
    }
    for i in 1..=a.len() {
        let (cur, prev, prev2) = (i % 3, (i + 2) % 3, (i + 1) % 3);
        rows[cur][0] = i;
        let mut row_min = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[prev][j] + 1)
                .min(rows[cur][j - 1] + 1)
                .min(rows[prev][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[prev2][j - 2] + 1);
            }
            rows[cur][j] = d;
            row_min = row_min.min(d);
        }
        if row_min > limit {
            return None;
        }
    }
    let d = rows[a.len() % 3 + if a.is_empty() { 1 } else { 0 }][b.len()];
    (d <= limit).then_some(d)
}

/// The closest of `options` to `word`, if it is close enough to be a plausible typo: at most a
/// third of the option's length away (at least 1), or the same but for case. Ties go to the
/// first option.
pub fn suggest<'a>(word: &str, options: &[&'a str]) -> Option<&'a str> {
    let mut best: Option<(usize, &'a str)> = None;
    for o in options {
        let limit = (o.chars().count() / 3)
            .max(1)
            .min(best.map_or(usize::MAX, |(d, _)| d.saturating_sub(1)));
        if let Some(d) = distance(word, o, limit) {
            best = Some((d, o));
        } else if best.is_none() && o.eq_ignore_ascii_case(word) {
            best = Some((0, o));
        }
    }
    best.map(|(_, o)| o)
}

#[cfg(test)]
mod tests {
    use super::{distance, suggest};

    #[test]
    fn distances() {
        assert_eq!(distance("abuot", "about", 3), Some(1));
        assert_eq!(distance("kitten", "sitting", 5), Some(3));
        assert_eq!(distance("kitten", "sitting", 2), None);
        assert_eq!(distance("", "abc", 3), Some(3));
        assert_eq!(distance("abc", "", 3), Some(3));
        assert_eq!(distance("", "", 0), Some(0));
        assert_eq!(distance("Metadta", "metadata", 2), Some(1));
        assert_eq!(distance("ABOUT", "about", 0), Some(0));
        assert_eq!(distance(&"a".repeat(65), "a", 100), None);
    }

    #[test]
    fn suggestions() {
        let keys = ["name", "type", "versions", "about", "tag", "taggedVersions"];
        assert_eq!(suggest("abuot", &keys), Some("about"));
        assert_eq!(suggest("abut", &keys), Some("about"));
        assert_eq!(suggest("verions", &keys), Some("versions"));
        assert_eq!(suggest("zzzzzz", &keys), None);
        assert_eq!(
            suggest("int33", &["int8", "int16", "int32", "int64"]),
            Some("int32")
        );
        assert_eq!(
            suggest("requets", &["request", "response"]),
            Some("request")
        );
    }
}
