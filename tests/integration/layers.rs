//! The crate's layering, checked on the source so that it stays true (see `docs/architecture.md`):
//!
//! - no import cycle between the files of `src/` (a folder's `mod.rs` may name its own children:
//!   declaring and re-exporting them is not an import);
//! - nothing under `src/iter/` or `src/sort/` names a scheduler internal: they reach `runtime` only
//!   through `runtime::sharing` and the public API re-exported at the crate root, and `platform` only
//!   through `sync` and `clock`;
//! - no folder under `src/` holds more than 25 `.rs` files directly, and every folder under
//!   `src/iter/` opens with a module doc.
//! - no source file is longer than 900 lines (one concept per file), except the two that hold
//!   rayon's long doc comments (`iter/parallel_iterator.rs`, `iter/sources/string.rs`);
//! - no comment under `src/` quotes a benchmark result (a before → after figure, "N % slower"),
//!   which belongs in `docs/benchmarks.md`, or an internal issue number.
//!
//! The checker reads `use` trees and `crate::`/`super::`/`self::` paths with comments and test
//! modules removed; it resolves each path to the longest prefix that is a module file.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// Every `.rs` file under `dir`, by module path (`""` is the crate root).
fn module_files(dir: &Path) -> BTreeMap<String, PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root).unwrap().with_extension("");
                let mut parts: Vec<String> = rel
                    .iter()
                    .map(|p| p.to_string_lossy().into_owned())
                    .collect();
                if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
                    parts.pop();
                }
                out.insert(parts.join("::"), path);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The source with comments and the contents of string and char literals removed.
fn strip_comments_and_literals(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                out.extend((chars[i] == '\n').then_some('\n'));
                i += 1;
            }
            i += 2;
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !is_ident_before(&chars, i)
        {
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            i += 2 + hashes;
            let closing: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            while i < chars.len() && !chars[i..].iter().collect::<String>().starts_with(&closing) {
                out.extend((chars[i] == '\n').then_some('\n'));
                i += 1;
            }
            i += closing.len();
            out.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                out.extend((chars[i] == '\n').then_some('\n'));
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && next == Some('\\') {
            // An escaped char literal: '\n', '\'', '\u{..}'.
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            i += 3;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && is_ident(chars[i - 1])
}

/// The code of a file: no comments, no literal contents, no `#[cfg(test)]`-style inline modules.
fn code_of(source: &str) -> String {
    let stripped = strip_comments_and_literals(source);
    let lines: Vec<&str> = stripped.lines().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        let next_is_inline_mod = lines.get(i + 1).is_some_and(|n| {
            let n = n.trim_start();
            let n = n.strip_prefix("pub(crate) ").unwrap_or(n);
            n.starts_with("mod ") && n.trim_end().ends_with('{')
        });
        if line.starts_with("#[cfg(") && line.contains("test") && next_is_inline_mod {
            let mut depth = 0i32;
            i += 1;
            loop {
                depth +=
                    lines[i].matches('{').count() as i32 - lines[i].matches('}').count() as i32;
                i += 1;
                if depth <= 0 || i >= lines.len() {
                    break;
                }
            }
            continue;
        }
        out.push_str(lines[i]);
        out.push('\n');
        i += 1;
    }
    out
}

/// `a::{b, c::{d, self}}` → `a::b`, `a::c::d`, `a::c`.
fn expand_use_tree(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![tree.split("as").next().unwrap().to_string()];
    };
    let prefix = &tree[..open];
    let close = tree
        .rfind('}')
        .unwrap_or_else(|| panic!("unbalanced use tree: {tree}"));
    let inner = &tree[open + 1..close];
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    let mut out = Vec::new();
    for item in items.into_iter().filter(|i| !i.is_empty()) {
        if item == "self" {
            out.push(prefix.trim_end_matches("::").to_string());
        } else {
            out.extend(expand_use_tree(&format!("{prefix}{item}")));
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths a file names: its `use` trees, and `crate::`/`super::`/`self::` paths elsewhere.
fn named_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = String::new();
    let mut s = code;
    while let Some(at) = s.find("use ") {
        let word_start = at == 0 || !is_ident(s[..at].chars().last().unwrap());
        rest.push_str(&s[..at]);
        if !word_start {
            rest.push_str("use ");
            s = &s[at + 4..];
            continue;
        }
        let end = s[at..].find(';').map_or(s.len(), |e| at + e);
        paths.extend(expand_use_tree(&s[at + 4..end]));
        s = &s[end..];
    }
    rest.push_str(s);
    for root in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(at) = rest[from..].find(root).map(|a| a + from) {
            from = at + root.len();
            if at > 0 && is_ident(rest[..at].chars().last().unwrap()) {
                continue;
            }
            let len = rest[at..]
                .find(|c: char| !(is_ident(c) || c == ':'))
                .unwrap_or(rest.len() - at);
            paths.push(rest[at..at + len].trim_end_matches(':').to_string());
        }
    }
    paths
}

/// The module file a path names, seen from `module`: the longest prefix that is a module file.
fn resolve(module: &str, path: &str, modules: &BTreeMap<String, PathBuf>) -> Option<String> {
    let mut parts: Vec<&str> = path.split("::").collect();
    let mut base: Vec<&str> = if module.is_empty() {
        vec![]
    } else {
        module.split("::").collect()
    };
    match parts[0] {
        "crate" => {
            base.clear();
            parts.remove(0);
        }
        "super" | "self" => {
            while let Some(&p) = parts.first() {
                match p {
                    "super" => drop(base.pop()),
                    "self" => {}
                    _ => break,
                }
                parts.remove(0);
            }
        }
        first => {
            // A path relative to the module: only a child module counts.
            let mut child = base.clone();
            child.push(first);
            if !modules.contains_key(&child.join("::")) {
                return None;
            }
        }
    }
    base.extend(parts);
    (0..=base.len())
        .rev()
        .map(|k| base[..k].join("::"))
        .find(|m| modules.contains_key(m))
}

/// Edges between module files: the crate root (re-exports only) and a module's own descendants
/// (its declarations) are left out.
fn import_graph(modules: &BTreeMap<String, PathBuf>) -> Graph {
    let mut graph = Graph::new();
    for (module, file) in modules {
        let code = code_of(&fs::read_to_string(file).unwrap());
        let deps = graph.entry(module.clone()).or_default();
        for path in named_paths(&code) {
            if let Some(target) = resolve(module, &path, modules) {
                let own_subtree = module.is_empty() || target.starts_with(&format!("{module}::"));
                if !target.is_empty() && target != *module && !own_subtree {
                    deps.insert(target);
                }
            }
        }
    }
    graph
}

/// One cycle of `graph`, if it has any.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &Graph,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_string(), 1);
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()) {
                Some(1) => {
                    let at = stack.iter().position(|n| n == next).unwrap();
                    let mut cycle = stack[at..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(next, graph, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if !state.contains_key(node) {
            if let Some(c) = visit(node, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_import_cycle_in_src() {
    let graph = import_graph(&module_files(&src()));
    assert!(
        graph.len() > 100,
        "the checker found too few modules: {}",
        graph.len()
    );
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle: {}", cycle.join(" -> "));
    }
}

#[test]
fn iterators_and_sorts_reach_the_scheduler_only_through_sharing() {
    let modules = module_files(&src());
    let graph = import_graph(&modules);
    let allowed = ["runtime::sharing", "platform::sync", "platform::clock"];
    let mut offences = Vec::new();
    let mut sharing_users = 0;
    for (module, deps) in &graph {
        if !(module.starts_with("iter") || module.starts_with("sort")) {
            continue;
        }
        for dep in deps {
            let lower_layer = dep.starts_with("runtime") || dep.starts_with("platform");
            if lower_layer && !allowed.contains(&dep.as_str()) {
                offences.push(format!("{module} -> {dep}"));
            }
            sharing_users += usize::from(dep == "runtime::sharing");
        }
    }
    assert!(
        sharing_users > 0,
        "the checker saw no use of runtime::sharing: it reads nothing"
    );
    assert!(
        offences.is_empty(),
        "scheduler internals named outside runtime: {offences:#?}"
    );
}

#[test]
fn folders_stay_small_and_iter_groups_say_what_they_hold() {
    fn check(dir: &Path, problems: &mut Vec<String>) {
        let mut files = 0;
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                check(&path, problems);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files += 1;
            }
        }
        if files > 25 {
            problems.push(format!("{} holds {files} .rs files", dir.display()));
        }
        if dir.starts_with(src().join("iter")) {
            let doc = fs::read_to_string(dir.join("mod.rs")).unwrap_or_default();
            if !doc.starts_with("//!") {
                problems.push(format!("{}/mod.rs has no module doc", dir.display()));
            }
        }
    }
    let mut problems = Vec::new();
    check(&src(), &mut problems);
    assert!(problems.is_empty(), "{problems:#?}");
}

/// Files allowed past [`MAX_FILE_LINES`]: one trait and one source, long with rayon's doc comments.
const LONG_FILES: [&str; 2] = ["iter/parallel_iterator.rs", "iter/sources/string.rs"];
/// The most lines a source file holds: past it, a file holds more than one concept.
const MAX_FILE_LINES: usize = 900;

/// Every file under `src/` with its path relative to `src/` (`/` separators).
fn source_files() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs" || e == "md") {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    walk(&src(), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let rel = path.strip_prefix(src()).unwrap();
            let rel = rel.iter().map(|p| p.to_string_lossy()).collect::<Vec<_>>();
            (rel.join("/"), fs::read_to_string(&path).unwrap())
        })
        .collect()
}

#[test]
fn source_files_hold_one_concept() {
    let long: Vec<String> = source_files()
        .into_iter()
        .filter(|(path, text)| {
            path.ends_with(".rs")
                && !LONG_FILES.contains(&path.as_str())
                && text.lines().count() > MAX_FILE_LINES
        })
        .map(|(path, text)| format!("src/{path}: {} lines", text.lines().count()))
        .collect();
    assert!(long.is_empty(), "over {MAX_FILE_LINES} lines: {long:#?}");
}

/// True if `line` quotes a measurement as a result: a before → after figure or "N % slower".
fn quotes_a_benchmark(line: &str) -> bool {
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ',' | ';' | ':'))
        .filter(|w| !w.is_empty())
        .collect();
    let number = |w: &str| w.trim_end_matches(['%', '.']).parse::<f64>().is_ok();
    let unit = |w: &str| {
        ["%", "ns", "µs", "us", "ms", "s", "instructions", "cycles"]
            .iter()
            .any(|u| {
                w.trim_end_matches('.') == *u || (w.ends_with(u) && number(&w[..w.len() - u.len()]))
            })
    };
    words.windows(3).any(|w| {
        // "85 → 100 ns", "45 -> 43 instructions"
        (number(w[0]) && matches!(w[1], "→" | "->") && number(w[2]))
        // "20 % slower", "17% faster"
            || ((w[1] == "%" || w[0].ends_with('%') && number(w[0]))
                && ["slower", "faster"].contains(&w[2].trim_end_matches('.')))
            || (w[0].ends_with('%') && number(w[0]) && ["slower", "faster"].contains(&w[1].trim_end_matches('.')))
    }) || words.windows(2).any(|w| unit(w[0]) && ["slower", "faster"].contains(&w[1]))
}

#[test]
fn comments_quote_no_benchmark_and_no_internal_issue() {
    let mut found = Vec::new();
    for (path, text) in source_files() {
        for (n, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            let comment =
                path.ends_with(".md") || trimmed.starts_with("//") || line.contains(" // ");
            let lower = line.to_lowercase();
            let issue = lower
                .split("issue ")
                .skip(1)
                .any(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
            if comment && (quotes_a_benchmark(line) || issue) {
                found.push(format!("src/{path}:{}: {}", n + 1, trimmed));
            }
        }
    }
    assert!(
        found.is_empty(),
        "measurements belong in docs/benchmarks.md, issue numbers nowhere: {found:#?}"
    );
}

#[test]
fn the_benchmark_check_sees_quoted_results() {
    assert!(quotes_a_benchmark("/// made fib 20 % slower on 2 threads"));
    assert!(quotes_a_benchmark("// fib: 45 → 43 instructions a join"));
    assert!(quotes_a_benchmark(
        "/// cost it 15% (85 → 100 ns on 2 threads)."
    ));
    assert!(quotes_a_benchmark("/// leaves 17% slower"));
    assert!(!quotes_a_benchmark(
        "/// lands within ~3% of the true median"
    ));
    assert!(!quotes_a_benchmark(
        "/// the pointer moves from slot 3 to 4"
    ));
}

#[test]
fn the_checker_sees_cycles_and_relative_paths() {
    let graph: Graph = [("a", &["b"][..]), ("b", &["c"]), ("c", &["a"]), ("d", &[])]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
        .collect();
    assert_eq!(find_cycle(&graph).unwrap(), ["a", "b", "c", "a"]);
    let modules: BTreeMap<String, PathBuf> = ["", "x", "x::y", "x::z", "w"]
        .iter()
        .map(|m| (m.to_string(), PathBuf::new()))
        .collect();
    assert_eq!(
        resolve("x::y", "super::z::Item", &modules).as_deref(),
        Some("x::z")
    );
    assert_eq!(resolve("x", "y::Item", &modules).as_deref(), Some("x::y"));
    assert_eq!(
        resolve("x::y", "crate::w::f", &modules).as_deref(),
        Some("w")
    );
    assert_eq!(resolve("x::y", "std::mem", &modules), None);
    let code = code_of(
        "use crate::w::{self, f};\n// crate::x::z in a comment\nfn g() { super::z::h() }\n\
         #[doc = \"use {crate::x\"] const C: char = '{';\n\
         #[cfg(test)]\nmod tests {\n    use crate::x::y;\n}\n",
    );
    assert_eq!(
        named_paths(&code),
        ["crate::w", "crate::w::f", "super::z::h"]
    );
}
