//! The names the docs give in backquotes exist: every `snake_case` or `path::like` name in
//! README.md, docs/ and the READMEs under src/ must appear as a word somewhere in the code (src/,
//! the tests, the simulation crate, the loom models, examples, benches, scripts, compat/) or as a
//! file name there. A function renamed in the code but not in the prose fails here.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Names from outside this repository that the docs cite: rayon's tests and crates, and methods
/// of the real crates the benchmarks run (indexmap, jwalk, ndarray, blake3).
const FOREIGN: &[&str] = &[
    "check_repeat_unbounded",
    "stack_overflow_crash",
    "rand_xorshift",
    "rayon_core",
    "par_sort_keys",
    "process_read_dir",
    "fold_while",
    "update_rayon",
];

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every identifier-like word of the code, and every file stem.
fn code_words() -> HashSet<String> {
    let mut files = Vec::new();
    for dir in [
        "src",
        "tests",
        "sim-tests",
        "loom-tests",
        "examples",
        "benches",
        "scripts",
        "compat",
    ] {
        files_under(&root().join(dir), &mut files);
    }
    files.push(root().join("Cargo.toml"));
    files.push(root().join(".ci/run"));
    let mut words = HashSet::new();
    for file in &files {
        if let Some(stem) = file.file_stem() {
            words.insert(stem.to_string_lossy().into_owned());
        }
        let is_code = matches!(
            file.extension().and_then(|e| e.to_str()),
            Some("rs" | "sh" | "toml") | None
        );
        let Ok(text) = fs::read_to_string(file) else {
            continue;
        };
        if !is_code {
            continue;
        }
        for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if !word.is_empty() {
                words.insert(word.to_owned());
            }
        }
    }
    words
}

/// The docs whose names are checked.
fn docs() -> Vec<PathBuf> {
    let mut docs = vec![root().join("README.md")];
    let mut under = Vec::new();
    files_under(&root().join("docs"), &mut under);
    files_under(&root().join("src"), &mut under);
    docs.extend(
        under
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "md")),
    );
    docs
}

/// The last path segment of a backquoted name worth checking: a path, or a word with an
/// underscore; `None` for prose, code, numbers and placeholders.
fn checked_name(quoted: &str) -> Option<&str> {
    let name = quoted.split(['(', '<']).next()?;
    let name = name.trim_end_matches("::");
    let is_path = name.split("::").all(|seg| {
        seg.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && seg.chars().all(|c| c.is_alphanumeric() || c == '_')
    });
    if !is_path || !(name.contains('_') || name.contains("::")) {
        return None;
    }
    let last = name.rsplit("::").next()?;
    // Placeholders (`fib_P`, `_any`, `position_`).
    if last.starts_with('_') || last.ends_with('_') || last.ends_with("_P") {
        return None;
    }
    Some(last)
}

#[test]
fn the_names_in_the_docs_exist_in_the_code() {
    let words = code_words();
    let mut missing = Vec::new();
    for doc in docs() {
        let text = fs::read_to_string(&doc).unwrap();
        for (i, quoted) in text.split('`').enumerate() {
            if i % 2 == 0 || quoted.contains('\n') {
                continue;
            }
            if let Some(name) = checked_name(quoted) {
                if !words.contains(name) && !FOREIGN.contains(&name) {
                    let rel = doc
                        .strip_prefix(root())
                        .unwrap_or(&doc)
                        .display()
                        .to_string();
                    missing.push(format!("{rel}: `{quoted}`"));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "names in the docs that the code does not have:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_check_sees_a_missing_name() {
    let words = code_words();
    assert!(words.contains("join_pieces_for_split"));
    assert_eq!(
        checked_name("join_pushing::<true, _>"),
        Some("join_pushing")
    );
    assert_eq!(checked_name("sharing::start_as()"), Some("start_as"));
    assert_eq!(checked_name("a sentence"), None);
    // Built here, so that this file does not hold it as a word.
    assert!(!words.contains(&format!("join_by_a_{}", "name_nobody_wrote")));
}
