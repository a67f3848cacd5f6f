//! Conditional groups that hold nothing but OpenMP directives
//! (`#ifdef _OPENMP` / `#pragma omp parallel for` / `#endif`, the idiom
//! of portable HPC code), for the second reading (`recover.rs`): such a
//! group is kept as written in the text read again, so the walk renders
//! the directive as the first reading does, with its condition repeated
//! around the closing half (`plan/openmp/ifdef.rs`), and a unit whose only
//! edits in the group are that rendering is whole in every configuration.

use std::ops::Range;

/// The groups inside `range` of `src` whose lines are all conditional
/// lines of that one group (no nested group), OpenMP directives (at least
/// one) or blank.
pub(crate) fn lone_omp_groups(src: &str, range: Range<usize>) -> Vec<Range<usize>> {
    // Only the unit's text is scanned (once per unit: an amalgamation has
    // thousands), and none without a `#pragma omp`-like word.
    let Some(text) = src.get(range.clone()) else {
        return Vec::new();
    };
    if !text.contains("omp") {
        return Vec::new();
    }
    super::items::all_groups(text)
        .into_iter()
        .map(|g| g.start + range.start..g.end + range.start)
        .filter(|g| g.end <= range.end)
        .filter(|g| is_lone_omp_group(src, g.clone()))
        .collect()
}

/// Whether the group spanning `group` is one [`lone_omp_groups`] finds.
pub(crate) fn is_lone_omp_group(src: &str, group: Range<usize>) -> bool {
    let Some(text) = src.get(group) else {
        return false;
    };
    let (mut opens, mut pragmas) = (0, 0);
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let mut line = line.trim().to_string();
        // A continued directive line.
        while line.ends_with('\\') {
            line.pop();
            line.push_str(lines.next().unwrap_or(""));
        }
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some(rest) = line.strip_prefix('#') else {
            return false;
        };
        let mut words = rest.split_whitespace();
        match words.next() {
            Some("if" | "ifdef" | "ifndef") => opens += 1,
            Some("elif" | "else" | "endif") => {}
            Some("pragma") if words.next().is_some_and(|w| w.eq_ignore_ascii_case("omp")) => {
                pragmas += 1
            }
            _ => return false,
        }
    }
    opens == 1 && pragmas >= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_groups_of_omp_directives() {
        let src = "#ifdef _OPENMP\n#pragma omp parallel for \\\n  private(i)\n#endif\nfor (;;) ;\n\
                   #ifdef _OPENMP\nomp_set_num_threads(2);\n#pragma omp parallel\n#endif\n{ }\n\
                   #if defined(_OPENMP)\n#pragma omp for\n#else\n#endif\n";
        let found: Vec<&str> = lone_omp_groups(src, 0..src.len())
            .into_iter()
            .map(|g| &src[g])
            .collect();
        assert_eq!(
            found,
            [
                "#ifdef _OPENMP\n#pragma omp parallel for \\\n  private(i)\n#endif\n",
                "#if defined(_OPENMP)\n#pragma omp for\n#else\n#endif\n",
            ]
        );
        // A nested group or another directive: not lone.
        assert!(!is_lone_omp_group(
            "#ifdef A\n#ifdef B\n#pragma omp for\n#endif\n#endif\n",
            0..46
        ));
        assert!(!is_lone_omp_group(
            "#ifdef A\n#define X 1\n#pragma omp for\n#endif\n",
            0..44
        ));
    }
}
