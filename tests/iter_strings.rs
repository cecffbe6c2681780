//! `ParallelString`: every method against its std counterpart, on strings of the usual lengths
//! (in characters) made of ASCII, multi-byte characters and separators, in and out of pools.

mod iter_common;

use forkjoin::prelude::*;
use iter_common::{everywhere, Rng, LENGTHS};

/// Characters of one to four bytes, with whitespace of both kinds and separators among them.
const ALPHABET: &[char] = &[
    'a', 'b', 'c', ' ', ' ', '\n', '\r', ',', '\t', 'é', 'ß', '€', '🦀', '\u{2009}', '\u{3000}',
];

fn strings() -> Vec<String> {
    let mut rng = Rng::new(5);
    let mut v: Vec<String> = LENGTHS
        .iter()
        .map(|&n| {
            (0..n)
                .map(|_| ALPHABET[(rng.next_u64() % ALPHABET.len() as u64) as usize])
                .collect()
        })
        .collect();
    // Long runs without separators, separators only, separators at both ends.
    v.push("x".repeat(50_000));
    v.push("🦀".repeat(20_000));
    v.push(",".repeat(1_000));
    v.push("\n".repeat(1_000));
    v.push(format!(",{},", "ab,".repeat(10_000)));
    v.push(format!("\r\n{}\r\n", "line\r\n".repeat(10_000)));
    for s in [
        "",
        "a",
        ",",
        "a,",
        ",a",
        "🦀",
        "🦀,🦀",
        "\n",
        "\r\n",
        "a\n\nb",
        "a\r",
    ] {
        v.push(s.to_string());
    }
    v
}

#[test]
fn character_sources_match_std() {
    everywhere(|| {
        for s in strings() {
            let s = s.as_str();
            assert_eq!(s.par_chars().collect::<String>(), s);
            assert_eq!(
                s.par_chars().collect::<Vec<_>>(),
                s.chars().collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_char_indices().collect::<Vec<_>>(),
                s.char_indices().collect::<Vec<_>>()
            );
            assert_eq!(s.par_bytes().collect::<Vec<_>>(), s.as_bytes());
            assert_eq!(
                s.par_encode_utf16().collect::<Vec<_>>(),
                s.encode_utf16().collect::<Vec<_>>()
            );
            assert_eq!(s.par_chars().count(), s.chars().count());
            let even: String = s.par_chars().filter(|&c| (c as u32) % 2 == 0).collect();
            assert_eq!(
                even,
                s.chars()
                    .filter(|&c| (c as u32) % 2 == 0)
                    .collect::<String>()
            );
        }
    });
}

/// Checks one split method against std with every kind of pattern rayon accepts.
macro_rules! check_patterns {
    ($s:expr, $sep:expr, $std:ident, $par:ident) => {{
        let s: &str = $s;
        let sep: char = $sep;
        let what = concat!(stringify!($par), " vs ", stringify!($std));
        let expected: Vec<_> = s.$std(sep).collect();
        assert_eq!(s.$par(sep).collect::<Vec<_>>(), expected, "{what} {sep:?}");
        assert_eq!(
            s.$par(|c| c == sep).collect::<Vec<_>>(),
            expected,
            "{what} closure"
        );
        let array = ['\u{0}', sep, '🦀'];
        let slice: &[char] = &array;
        assert_eq!(
            s.$par(slice).collect::<Vec<_>>(),
            s.$std(slice).collect::<Vec<_>>(),
            "{what} slice"
        );
        assert_eq!(
            s.$par(array).collect::<Vec<_>>(),
            s.$std(array).collect::<Vec<_>>(),
            "{what} array"
        );
        assert_eq!(
            s.$par(&array).collect::<Vec<_>>(),
            s.$std(&array).collect::<Vec<_>>(),
            "{what} array ref"
        );
    }};
}

#[test]
fn splits_and_matches_match_std() {
    everywhere(|| {
        for s in strings() {
            for sep in [',', ' ', '\n', 'é', '🦀', 'z'] {
                check_patterns!(&s, sep, split, par_split);
                check_patterns!(&s, sep, split_inclusive, par_split_inclusive);
                check_patterns!(&s, sep, split_terminator, par_split_terminator);
                check_patterns!(&s, sep, matches, par_matches);
                check_patterns!(&s, sep, match_indices, par_match_indices);
            }
            assert_eq!(
                s.par_lines().collect::<Vec<_>>(),
                s.lines().collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_split_whitespace().collect::<Vec<_>>(),
                s.split_whitespace().collect::<Vec<_>>()
            );
            assert_eq!(
                s.par_split_ascii_whitespace().collect::<Vec<_>>(),
                s.split_ascii_whitespace().collect::<Vec<_>>()
            );
            // Through other consumers: an ordered reduction and an early exit.
            let joined = s
                .par_split(',')
                .map(|w| format!("[{w}]"))
                .reduce(String::new, |a, b| a + &b);
            let expected: String = s.split(',').map(|w| format!("[{w}]")).collect();
            assert_eq!(joined, expected);
            assert_eq!(
                s.par_split(',').find_first(|w| w.contains('é')),
                s.split(',').find(|w| w.contains('é'))
            );
            assert_eq!(
                s.par_lines().find_last(|l| l.len() > 3),
                s.lines().rev().find(|l| l.len() > 3)
            );
        }
    });
}

#[test]
fn strings_work_through_string_and_module_paths() {
    let owned = String::from("a b\nc");
    let it: forkjoin::str::SplitWhitespace<'_> = owned.par_split_whitespace();
    assert_eq!(it.collect::<Vec<_>>(), ["a", "b", "c"]);
    fn lines<S: forkjoin::str::ParallelString + ?Sized>(s: &S) -> usize {
        s.par_lines().count()
    }
    assert_eq!(lines(owned.as_str()), 2);
}

/// Pieces that cannot be cut (one wide character, no separator, a separator only at the end)
/// while idle workers keep asking for work: the bridge must not try to split them forever.
#[test]
fn uncuttable_pieces_under_requests_for_work() {
    use iter_common::spin::spin;
    let pool = forkjoin::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let slow = |s: &str| spin(20_000) as usize % 2 + s.len();
    // Several items per piece, so that a piece is asked to split after a timed batch.
    let repeated = [
        "a🦀".repeat(8),
        "ab,".repeat(8),
        "🦀".repeat(8),
        "x\n".repeat(8),
    ];
    let short = [
        "🦀",
        "a🦀",
        "ab🦀",
        "xxxx🦀",
        "x\n",
        ",",
        "\u{3000}a\u{3000}",
    ];
    for s in repeated.iter().map(String::as_str).chain(short) {
        for _ in 0..20 {
            pool.install(|| {
                let n: usize = s
                    .par_chars()
                    .map(|c| slow(c.encode_utf8(&mut [0; 4])))
                    .sum();
                assert!(n >= s.chars().count());
                for sep in ['🦀', ',', '\n', '\u{3000}'] {
                    let got: Vec<&str> = s
                        .par_split_inclusive(sep)
                        .inspect(|w| _ = slow(w))
                        .collect();
                    assert_eq!(got, s.split_inclusive(sep).collect::<Vec<_>>());
                    let got: Vec<&str> = s.par_split(sep).inspect(|w| _ = slow(w)).collect();
                    assert_eq!(got, s.split(sep).collect::<Vec<_>>());
                    let got: Vec<&str> = s.par_matches(sep).inspect(|w| _ = slow(w)).collect();
                    assert_eq!(got, s.matches(sep).collect::<Vec<_>>());
                }
            });
        }
    }
}

#[test]
fn os_strings_collect_and_extend_in_order() {
    use std::borrow::Cow;
    use std::ffi::{OsStr, OsString};
    everywhere(|| {
        for s in strings() {
            let words = s.split_whitespace().map(OsStr::new);
            let expected: OsString = words.clone().collect();
            let par_words = s.par_split_whitespace().map(OsStr::new);
            assert_eq!(par_words.clone().collect::<OsString>(), expected);
            let owned: OsString = par_words.clone().map(OsStr::to_owned).collect();
            assert_eq!(owned, expected);
            let cows: OsString = par_words.clone().map(Cow::Borrowed).collect();
            assert_eq!(cows, expected);
            let cow: Cow<'_, OsStr> = par_words.clone().collect();
            assert_eq!(cow, Cow::<OsStr>::Owned(expected.clone()));

            let mut target = OsString::from(">");
            target.par_extend(par_words);
            let mut e = OsString::from(">");
            e.extend(words);
            assert_eq!(target, e);
        }
    });
}
