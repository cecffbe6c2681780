//! Parallel iterators over string slices: the [`ParallelString`] methods (`par_chars`,
//! `par_split`, `par_lines`, ...), as in rayon's `str` module.
//!
//! None of these iterators is indexed (a `char` is one to four bytes, a piece of a split any
//! length), but all run through the same bridge as the indexed ones, with *bytes* as positions:
//! a producer covers a byte range of the string and cuts it only where the items allow.
//!
//! * Character sources (`par_chars`, `par_char_indices`, `par_bytes`, `par_encode_utf16`,
//!   `par_matches`, `par_match_indices`) cut at the first character boundary at or after the
//!   requested byte, so a multi-byte character (or its UTF-16 surrogate pair) stays in one piece.
//! * Split sources (`par_split`, `par_split_inclusive`, `par_split_terminator`, and through them
//!   `par_lines`, `par_split_whitespace`, `par_split_ascii_whitespace`) cut at a *separator*: the
//!   first one at or after the requested byte, else the last one before it, else nowhere (the
//!   piece stays whole). As in rayon, a piece remembers the part of its bytes already searched
//!   without a hit (its `tail`), so no byte is searched twice for a cut. A piece of `par_split`
//!   counts one position more than its bytes: the empty string still yields one (empty) item.
//!
//! Within a piece the items come from std's own iterators (`str::chars`, `str::split`,
//! `str::matches`, ...), so a piece runs exactly the sequential code.

use crate::iter::plumbing::bridge::{bridge_pieces, Piece};
use crate::iter::plumbing::LazyConsumer;
use crate::iter::plumbing::{drive_unindexed_lazily, UnindexedConsumer};
use crate::iter::ParallelIterator;

/// Parallel methods on string slices (and, by auto-deref, `String`s), as rayon's
/// `ParallelString`: implement [`as_parallel_string`](Self::as_parallel_string) for a type to get
/// the rest.
///
/// The patterns of `par_split`, `par_split_inclusive`, `par_split_terminator`, `par_matches` and
/// `par_match_indices` are those of rayon: a `char`, a `&[char]`, a `[char; N]`, a `&[char; N]`,
/// or a closure `Fn(char) -> bool + Sync + Send` (the sealed trait `Pattern`). Every iterator
/// yields the items of its std counterpart, in the same order.
///
/// ```
/// use forkjoin::prelude::*;
/// let text = "fork join\nwork stealing\n";
/// let words: Vec<&str> = text.par_split_whitespace().collect();
/// assert_eq!(words, ["fork", "join", "work", "stealing"]);
/// let lens: Vec<usize> = text.par_lines().map(str::len).collect();
/// assert_eq!(lens, [9, 13]);
/// ```
pub trait ParallelString {
    /// The string slice these methods work on.
    ///
    /// ```
    /// use forkjoin::str::ParallelString;
    /// let s = String::from("fork");
    /// assert_eq!(s.as_parallel_string(), "fork");
    /// ```
    fn as_parallel_string(&self) -> &str;

    /// The characters of the string, like [`str::chars`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!("hello".par_chars().max_by_key(|&c| c as u32), Some('o'));
    /// ```
    fn par_chars(&self) -> Chars<'_> {
        Chars {
            chars: self.as_parallel_string(),
        }
    }

    /// The characters of the string with their byte offsets, like [`str::char_indices`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let v: Vec<(usize, char)> = "aé!".par_char_indices().collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'é'), (3, '!')]);
    /// ```
    fn par_char_indices(&self) -> CharIndices<'_> {
        CharIndices {
            chars: self.as_parallel_string(),
        }
    }

    /// The bytes of the string, like [`str::bytes`]. The bytes of one character stay in one
    /// piece of the work; for an indexed iterator use `s.as_bytes().par_iter()`.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// assert_eq!("hello".par_bytes().max(), Some(b'o'));
    /// ```
    fn par_bytes(&self) -> Bytes<'_> {
        Bytes {
            chars: self.as_parallel_string(),
        }
    }

    /// The string as UTF-16 code units, like [`str::encode_utf16`]. A surrogate pair stays in
    /// one piece of the work.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let units: Vec<u16> = "a😀".par_encode_utf16().collect();
    /// assert_eq!(units, "a😀".encode_utf16().collect::<Vec<_>>());
    /// ```
    fn par_encode_utf16(&self) -> EncodeUtf16<'_> {
        EncodeUtf16 {
            chars: self.as_parallel_string(),
        }
    }

    /// The substrings separated by `separator`, like [`str::split`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let total: i32 = "1, 2, buckle, 3, 4, door"
    ///     .par_split(',')
    ///     .filter_map(|s| s.trim().parse::<i32>().ok())
    ///     .sum();
    /// assert_eq!(total, 10);
    /// ```
    fn par_split<P: Pattern>(&self, separator: P) -> Split<'_, P> {
        Split {
            chars: self.as_parallel_string(),
            separator,
        }
    }

    /// The substrings separated by `separator`, each with the separator that ends it, like
    /// [`str::split_inclusive`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let lines: Vec<&str> = "Mary had a little lamb\nlittle lamb\nlittle lamb."
    ///     .par_split_inclusive('\n')
    ///     .collect();
    /// assert_eq!(lines, ["Mary had a little lamb\n", "little lamb\n", "little lamb."]);
    /// ```
    fn par_split_inclusive<P: Pattern>(&self, separator: P) -> SplitInclusive<'_, P> {
        SplitInclusive {
            chars: self.as_parallel_string(),
            separator,
        }
    }

    /// The substrings terminated by `terminator`, like [`str::split_terminator`]: as
    /// [`par_split`](Self::par_split), without the empty substring after a final terminator.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let parts: Vec<&str> = "((1 + 3) * 2)"
    ///     .par_split_terminator(|c| c == '(' || c == ')')
    ///     .collect();
    /// assert_eq!(parts, ["", "", "1 + 3", " * 2"]);
    /// ```
    fn par_split_terminator<P: Pattern>(&self, terminator: P) -> SplitTerminator<'_, P> {
        SplitTerminator {
            chars: self.as_parallel_string(),
            terminator,
        }
    }

    /// The lines of the string, like [`str::lines`]: separated by `\n` or `\r\n`, without the
    /// line endings; a final line ending is optional.
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let lengths: Vec<usize> = "hello world\r\nfizzbuzz\n".par_lines().map(str::len).collect();
    /// assert_eq!(lengths, [11, 8]);
    /// ```
    fn par_lines(&self) -> Lines<'_> {
        Lines(self.as_parallel_string())
    }

    /// The non-empty substrings separated by Unicode whitespace, like
    /// [`str::split_whitespace`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let words: Vec<&str> = " Mary   had\ta\u{2009}little  \n\t lamb"
    ///     .par_split_whitespace()
    ///     .collect();
    /// assert_eq!(words, ["Mary", "had", "a", "little", "lamb"]);
    /// ```
    fn par_split_whitespace(&self) -> SplitWhitespace<'_> {
        SplitWhitespace(self.as_parallel_string())
    }

    /// The non-empty substrings separated by ASCII whitespace, like
    /// [`str::split_ascii_whitespace`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let words: Vec<&str> = " Mary   had\ta\u{2009}little  \n\t lamb"
    ///     .par_split_ascii_whitespace()
    ///     .collect();
    /// assert_eq!(words, ["Mary", "had", "a\u{2009}little", "lamb"]);
    /// ```
    fn par_split_ascii_whitespace(&self) -> SplitAsciiWhitespace<'_> {
        SplitAsciiWhitespace(self.as_parallel_string())
    }

    /// The substrings that match `pattern` (single characters), like [`str::matches`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let total: u32 = "1, 2, buckle, 3, 4, door"
    ///     .par_matches(char::is_numeric)
    ///     .map(|s| s.parse::<u32>().unwrap())
    ///     .sum();
    /// assert_eq!(total, 10);
    /// ```
    fn par_matches<P: Pattern>(&self, pattern: P) -> Matches<'_, P> {
        Matches {
            chars: self.as_parallel_string(),
            pattern,
        }
    }

    /// The substrings that match `pattern`, with their byte offsets, like
    /// [`str::match_indices`].
    ///
    /// ```
    /// use forkjoin::prelude::*;
    /// let digits: Vec<(usize, &str)> = "1, 2, buckle, 3".par_match_indices(char::is_numeric).collect();
    /// assert_eq!(digits, [(0, "1"), (3, "2"), (14, "3")]);
    /// ```
    fn par_match_indices<P: Pattern>(&self, pattern: P) -> MatchIndices<'_, P> {
        MatchIndices {
            chars: self.as_parallel_string(),
            pattern,
        }
    }
}

impl ParallelString for str {
    #[inline]
    fn as_parallel_string(&self) -> &str {
        self
    }
}

mod sealed {
    /// Keeps [`Pattern`](super::Pattern) implemented only here, as rayon's is.
    pub trait Sealed {}
}

/// The patterns of [`ParallelString`]'s methods: `char`, `&[char]`, `[char; N]`, `&[char; N]`
/// and closures `Fn(char) -> bool + Sync + Send`, as in rayon. Sealed: its methods are std's
/// searches for each pattern type, used by forkjoin only.
///
/// ```
/// use forkjoin::prelude::*;
/// let s = "a-b_c";
/// let by_slice: Vec<&str> = s.par_split(&['-', '_'][..]).collect();
/// let by_array: Vec<&str> = s.par_split(['-', '_']).collect();
/// let by_fn: Vec<&str> = s.par_split(|c: char| !c.is_alphabetic()).collect();
/// assert_eq!(by_slice, ["a", "b", "c"]);
/// assert_eq!(by_array, by_slice);
/// assert_eq!(by_fn, by_slice);
/// ```
pub trait Pattern: Sized + Sync + Send + sealed::Sealed {
    /// std's `split` iterator for this pattern.
    #[doc(hidden)]
    type Split<'h, 'p>: DoubleEndedIterator<Item = &'h str>
    where
        Self: 'p;
    /// std's `split_inclusive` iterator for this pattern.
    #[doc(hidden)]
    type SplitInclusive<'h, 'p>: Iterator<Item = &'h str>
    where
        Self: 'p;
    /// std's `matches` iterator for this pattern.
    #[doc(hidden)]
    type Matches<'h, 'p>: Iterator<Item = &'h str>
    where
        Self: 'p;
    /// std's `match_indices` iterator for this pattern.
    #[doc(hidden)]
    type MatchIndices<'h, 'p>: Iterator<Item = (usize, &'h str)>
    where
        Self: 'p;

    /// `haystack.find(self)`.
    #[doc(hidden)]
    fn find_in(&self, haystack: &str) -> Option<usize>;
    /// `haystack.rfind(self)`.
    #[doc(hidden)]
    fn rfind_in(&self, haystack: &str) -> Option<usize>;
    /// `haystack.ends_with(self)`.
    #[doc(hidden)]
    fn is_suffix_of(&self, haystack: &str) -> bool;
    /// `haystack.split(self)`.
    #[doc(hidden)]
    fn split_in<'h, 'p>(&'p self, haystack: &'h str) -> Self::Split<'h, 'p>;
    /// `haystack.split_inclusive(self)`.
    #[doc(hidden)]
    fn split_inclusive_in<'h, 'p>(&'p self, haystack: &'h str) -> Self::SplitInclusive<'h, 'p>;
    /// `haystack.matches(self)`.
    #[doc(hidden)]
    fn matches_in<'h, 'p>(&'p self, haystack: &'h str) -> Self::Matches<'h, 'p>;
    /// `haystack.match_indices(self)`.
    #[doc(hidden)]
    fn match_indices_in<'h, 'p>(&'p self, haystack: &'h str) -> Self::MatchIndices<'h, 'p>;
}

/// Implements [`Pattern`] for `$t`, searching with `$pat` (an expression of `self`) whose type
/// is `$p`.
macro_rules! impl_pattern {
    ([$($gen:tt)*] $t:ty, |$this:ident| $pat:expr, $p:ty) => {
        impl<$($gen)*> sealed::Sealed for $t {}

        impl<$($gen)*> Pattern for $t {
            type Split<'h, 'p> = std::str::Split<'h, $p> where Self: 'p;
            type SplitInclusive<'h, 'p> = std::str::SplitInclusive<'h, $p> where Self: 'p;
            type Matches<'h, 'p> = std::str::Matches<'h, $p> where Self: 'p;
            type MatchIndices<'h, 'p> = std::str::MatchIndices<'h, $p> where Self: 'p;

            #[inline]
            fn find_in(&self, haystack: &str) -> Option<usize> {
                let $this = self;
                haystack.find($pat)
            }
            #[inline]
            fn rfind_in(&self, haystack: &str) -> Option<usize> {
                let $this = self;
                haystack.rfind($pat)
            }
            #[inline]
            fn is_suffix_of(&self, haystack: &str) -> bool {
                let $this = self;
                haystack.ends_with($pat)
            }
            #[inline]
            fn split_in<'h, 'p>(&'p self, haystack: &'h str) -> Self::Split<'h, 'p> {
                let $this = self;
                haystack.split($pat)
            }
            #[inline]
            fn split_inclusive_in<'h, 'p>(
                &'p self,
                haystack: &'h str,
            ) -> Self::SplitInclusive<'h, 'p> {
                let $this = self;
                haystack.split_inclusive($pat)
            }
            #[inline]
            fn matches_in<'h, 'p>(&'p self, haystack: &'h str) -> Self::Matches<'h, 'p> {
                let $this = self;
                haystack.matches($pat)
            }
            #[inline]
            fn match_indices_in<'h, 'p>(
                &'p self,
                haystack: &'h str,
            ) -> Self::MatchIndices<'h, 'p> {
                let $this = self;
                haystack.match_indices($pat)
            }
        }
    };
}

impl_pattern!([] char, |this| *this, char);
impl_pattern!(['a] &'a [char], |this| *this, &'p [char]);
impl_pattern!([const N: usize] [char; N], |this| *this, [char; N]);
impl_pattern!(['a, const N: usize] &'a [char; N], |this| *this, &'p [char; N]);
impl_pattern!([F: Fn(char) -> bool + Sync + Send] F, |this| this, &'p F);

// ----- Character sources ---------------------------------------------------------------------

/// The first character boundary of `s` at or after byte `index` (`s.len()` at most).
#[inline]
fn ceil_char_boundary(s: &str, index: usize) -> usize {
    let mut i = index.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// What a character source yields from a piece of the string (starting at byte `base` of it).
trait Scan<'h>: Copy + Send {
    type Item;
    type Iter: Iterator<Item = Self::Item>;
    fn scan(self, base: usize, piece: &'h str) -> Self::Iter;
}

/// A piece of the string for a character source: positions are bytes, cuts fall on character
/// boundaries.
struct CharsProducer<'h, S> {
    base: usize,
    chars: &'h str,
    scan: S,
}

impl<'h, S: Scan<'h>> Piece for CharsProducer<'h, S> {
    type Item = S::Item;
    type IntoIter = S::Iter;

    fn len(&self) -> usize {
        self.chars.len()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let at = ceil_char_boundary(self.chars, index);
        let (left, right) = self.chars.split_at(at);
        (
            CharsProducer {
                chars: left,
                ..self
            },
            CharsProducer {
                base: self.base + at,
                chars: right,
                scan: self.scan,
            },
        )
    }
    fn into_iter(self) -> S::Iter {
        self.scan.scan(self.base, self.chars)
    }
    fn min_len(&self) -> usize {
        // A cut in the middle moves to the next character boundary: if that is the end (the
        // last character holds more than half the bytes), the piece cannot be cut in two.
        let len = self.chars.len();
        uncuttable_if(len > 1 && ceil_char_boundary(self.chars, len / 2) == len)
    }
}

/// Adds `base` to the byte offsets of `(offset, item)` pairs.
#[derive(Debug)]
struct Offset<I> {
    base: usize,
    iter: I,
}

impl<T, I: Iterator<Item = (usize, T)>> Iterator for Offset<I> {
    type Item = (usize, T);
    #[inline]
    fn next(&mut self) -> Option<(usize, T)> {
        self.iter.next().map(|(i, x)| (self.base + i, x))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
    fn fold<B, F: FnMut(B, (usize, T)) -> B>(self, init: B, mut f: F) -> B {
        let base = self.base;
        self.iter
            .fold(init, move |acc, (i, x)| f(acc, (base + i, x)))
    }
}

/// Declares a character source: its public iterator type, its [`Scan`], and how it drives.
macro_rules! char_source {
    ($(#[$doc:meta])* $name:ident, $scan:ident, $item:ty, |$base:ident, $piece:ident| $iter:expr, $iter_ty:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        #[must_use = "parallel iterators are lazy and do nothing unless consumed"]
        pub struct $name<'h> {
            chars: &'h str,
        }

        #[derive(Clone, Copy)]
        struct $scan;

        impl<'h> Scan<'h> for $scan {
            type Item = $item;
            type Iter = $iter_ty;
            #[inline]
            fn scan(self, $base: usize, $piece: &'h str) -> $iter_ty {
                $iter
            }
        }

        impl<'h> ParallelIterator for $name<'h> {
            type Item = $item;
            fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
                drive_unindexed_lazily(self, consumer)
            }

            fn drive_lazy<C: LazyConsumer<$item>>(self, consumer: C) -> C::Result {
                let producer = CharsProducer {
                    base: 0,
                    chars: self.chars,
                    scan: $scan,
                };
                bridge_pieces(producer, consumer)
            }
        }
    };
}

char_source!(
    /// Parallel iterator over the characters of a string ([`ParallelString::par_chars`]).
    Chars, CharsScan, char, |_base, piece| piece.chars(), std::str::Chars<'h>
);
char_source!(
    /// Parallel iterator over the characters of a string with their byte offsets
    /// ([`ParallelString::par_char_indices`]).
    CharIndices, CharIndicesScan, (usize, char),
    |base, piece| Offset { base, iter: piece.char_indices() },
    Offset<std::str::CharIndices<'h>>
);
char_source!(
    /// Parallel iterator over the bytes of a string ([`ParallelString::par_bytes`]).
    Bytes, BytesScan, u8, |_base, piece| piece.bytes(), std::str::Bytes<'h>
);
char_source!(
    /// Parallel iterator over a string as UTF-16 code units
    /// ([`ParallelString::par_encode_utf16`]).
    EncodeUtf16, EncodeUtf16Scan, u16, |_base, piece| piece.encode_utf16(), std::str::EncodeUtf16<'h>
);

/// The [`Scan`] of `par_matches`.
struct MatchesScan<'p, P>(&'p P);

impl<P> Clone for MatchesScan<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for MatchesScan<'_, P> {}

impl<'h, 'p, P: Pattern> Scan<'h> for MatchesScan<'p, P> {
    type Item = &'h str;
    type Iter = P::Matches<'h, 'p>;
    fn scan(self, _base: usize, piece: &'h str) -> Self::Iter {
        self.0.matches_in(piece)
    }
}

/// The [`Scan`] of `par_match_indices`.
struct MatchIndicesScan<'p, P>(&'p P);

impl<P> Clone for MatchIndicesScan<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for MatchIndicesScan<'_, P> {}

impl<'h, 'p, P: Pattern> Scan<'h> for MatchIndicesScan<'p, P> {
    type Item = (usize, &'h str);
    type Iter = Offset<P::MatchIndices<'h, 'p>>;
    fn scan(self, base: usize, piece: &'h str) -> Self::Iter {
        Offset {
            base,
            iter: self.0.match_indices_in(piece),
        }
    }
}

/// Parallel iterator over the substrings that match a pattern ([`ParallelString::par_matches`]).
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Matches<'h, P: Pattern> {
    chars: &'h str,
    pattern: P,
}

impl<'h, P: Pattern> ParallelIterator for Matches<'h, P> {
    type Item = &'h str;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<&'h str>>(self, consumer: C) -> C::Result {
        let producer = CharsProducer {
            base: 0,
            chars: self.chars,
            scan: MatchesScan(&self.pattern),
        };
        bridge_pieces(producer, consumer)
    }
}

/// Parallel iterator over the substrings that match a pattern, with their byte offsets
/// ([`ParallelString::par_match_indices`]).
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct MatchIndices<'h, P: Pattern> {
    chars: &'h str,
    pattern: P,
}

impl<'h, P: Pattern> ParallelIterator for MatchIndices<'h, P> {
    type Item = (usize, &'h str);
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<(usize, &'h str)>>(self, consumer: C) -> C::Result {
        let producer = CharsProducer {
            base: 0,
            chars: self.chars,
            scan: MatchIndicesScan(&self.pattern),
        };
        bridge_pieces(producer, consumer)
    }
}

// ----- Split sources -------------------------------------------------------------------------

/// A cut of a split piece at a separator: the separator's byte range, and what the two sides
/// know of where separators can still be.
struct Cut {
    /// The separator occupies `at..after`.
    at: usize,
    after: usize,
    /// The `tail` of the left side (a byte offset in it) and of the right side (in its bytes).
    left_tail: usize,
    right_tail: usize,
}

/// Where to cut `data` (whose bytes from `tail` on hold no separator) near byte `target`: at the
/// first separator at or after it, else at the last one before it; `None` if there is none.
fn find_cut<P: Pattern>(data: &str, tail: usize, pattern: &P, target: usize) -> Option<Cut> {
    let target = ceil_char_boundary(data, target);
    let separator_len = |at: usize| data[at..].chars().next().map_or(0, char::len_utf8);
    if target < tail {
        if let Some(i) = pattern.find_in(&data[target..tail]) {
            let at = target + i;
            let after = at + separator_len(at);
            // Left: nothing between `target` and the separator. Right: nothing from `tail` on.
            return Some(Cut {
                at,
                after,
                left_tail: target,
                right_tail: tail - after,
            });
        }
    }
    // Nothing from `target` on: the last separator before it, if any, leaves a right side with
    // none at all.
    let at = pattern.rfind_in(&data[..target])?;
    let after = at + separator_len(at);
    Some(Cut {
        at,
        after,
        left_tail: at,
        right_tail: 0,
    })
}

/// The `min_len` of a piece: `usize::MAX` when it is known to hold no place to cut.
///
/// The bridge splits a piece in the middle (or before it) when an idle worker asks, and expects
/// both halves to be shorter; a piece without a separator (or whose last character holds more
/// than half its bytes) keeps everything on one side, and would be split again and again. Its
/// `min_len` tells the bridge not to try. (Batches cut off the front of a piece need no such
/// care: the front side of a cut always holds something.)
fn uncuttable_if(uncuttable: bool) -> usize {
    if uncuttable {
        usize::MAX
    } else {
        1
    }
}

/// A piece of `par_split` or `par_split_terminator`: the substrings of `data` between
/// separators. It counts `data.len() + 1` positions (an empty `data` still yields one empty
/// substring), or none when `nothing` is set (the empty right side of a piece that could not be
/// cut).
struct SplitProducer<'h, 'p, P> {
    data: &'h str,
    /// Bytes from here on hold no separator.
    tail: usize,
    pattern: &'p P,
    nothing: bool,
    /// `par_split_terminator`: this piece ends the string, which ends with a terminator (or is
    /// empty), so its last (empty) substring is not an item.
    skip_last: bool,
}

impl<'h, 'p, P: Pattern> SplitProducer<'h, 'p, P> {
    fn new(data: &'h str, pattern: &'p P, skip_last: bool) -> Self {
        SplitProducer {
            data,
            tail: data.len(),
            pattern,
            nothing: false,
            skip_last,
        }
    }

    fn nothing(pattern: &'p P) -> Self {
        SplitProducer {
            nothing: true,
            ..SplitProducer::new("", pattern, false)
        }
    }
}

impl<'h, 'p, P: Pattern> Piece for SplitProducer<'h, 'p, P> {
    type Item = &'h str;
    type IntoIter = P::Split<'h, 'p>;

    fn len(&self) -> usize {
        if self.nothing {
            0
        } else {
            self.data.len() + 1
        }
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let nothing = SplitProducer::nothing(self.pattern);
        if index == 0 {
            return (nothing, self);
        }
        if index >= self.len() || self.tail == 0 {
            return (self, nothing);
        }
        match find_cut(self.data, self.tail, self.pattern, index) {
            None => (
                // No separator anywhere: the piece cannot be cut (see `min_len`).
                SplitProducer { tail: 0, ..self },
                nothing,
            ),
            Some(cut) => {
                let left = SplitProducer {
                    data: &self.data[..cut.at],
                    tail: cut.left_tail,
                    skip_last: false,
                    ..self
                };
                let right = SplitProducer {
                    data: &self.data[cut.after..],
                    tail: cut.right_tail,
                    ..self
                };
                (left, right)
            }
        }
    }

    fn min_len(&self) -> usize {
        uncuttable_if(self.tail == 0)
    }

    fn into_iter(self) -> Self::IntoIter {
        let mut iter = self.pattern.split_in(self.data);
        if self.nothing {
            // The one empty substring of `""`.
            iter.next();
        }
        if self.skip_last {
            iter.next_back();
        }
        iter
    }
}

/// A piece of `par_split_inclusive`: the substrings of `data`, each with the separator that
/// ends it. It counts `data.len()` positions (an empty `data` yields nothing).
struct SplitInclusiveProducer<'h, 'p, P> {
    data: &'h str,
    tail: usize,
    pattern: &'p P,
}

impl<'h, 'p, P: Pattern> Piece for SplitInclusiveProducer<'h, 'p, P> {
    type Item = &'h str;
    type IntoIter = P::SplitInclusive<'h, 'p>;

    fn len(&self) -> usize {
        self.data.len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (at, left_tail, right_tail) = if index == 0 {
            (0, 0, self.tail)
        } else if index >= self.data.len() || self.tail == 0 {
            (self.data.len(), self.tail, 0)
        } else {
            // A cut after the last character would leave nothing on the right: search without
            // it (the tails then speak of this shorter body only, all that is ever searched).
            let last = self.data.chars().next_back().map_or(0, char::len_utf8);
            let body = &self.data[..self.data.len() - last];
            let tail = self.tail.min(body.len());
            match find_cut(body, tail, self.pattern, index.min(body.len())) {
                // The separator ends the left side.
                Some(cut) => (cut.after, cut.left_tail, cut.right_tail),
                // No separator anywhere: the piece cannot be cut (see `min_len`).
                None => (self.data.len(), 0, 0),
            }
        };
        let (left, right) = self.data.split_at(at);
        (
            SplitInclusiveProducer {
                data: left,
                tail: left_tail.min(left.len()),
                pattern: self.pattern,
            },
            SplitInclusiveProducer {
                data: right,
                tail: right_tail,
                pattern: self.pattern,
            },
        )
    }

    fn min_len(&self) -> usize {
        uncuttable_if(self.tail == 0)
    }

    fn into_iter(self) -> Self::IntoIter {
        self.pattern.split_inclusive_in(self.data)
    }
}

/// Parallel iterator over the substrings separated by a pattern
/// ([`ParallelString::par_split`]).
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Split<'h, P: Pattern> {
    chars: &'h str,
    separator: P,
}

impl<'h, P: Pattern> ParallelIterator for Split<'h, P> {
    type Item = &'h str;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<&'h str>>(self, consumer: C) -> C::Result {
        bridge_pieces(
            SplitProducer::new(self.chars, &self.separator, false),
            consumer,
        )
    }
}

/// Parallel iterator over the substrings separated by a pattern, each with its separator
/// ([`ParallelString::par_split_inclusive`]).
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct SplitInclusive<'h, P: Pattern> {
    chars: &'h str,
    separator: P,
}

impl<'h, P: Pattern> ParallelIterator for SplitInclusive<'h, P> {
    type Item = &'h str;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<&'h str>>(self, consumer: C) -> C::Result {
        let producer = SplitInclusiveProducer {
            data: self.chars,
            tail: self.chars.len(),
            pattern: &self.separator,
        };
        bridge_pieces(producer, consumer)
    }
}

/// Parallel iterator over the substrings terminated by a pattern
/// ([`ParallelString::par_split_terminator`]).
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct SplitTerminator<'h, P: Pattern> {
    chars: &'h str,
    terminator: P,
}

impl<'h, P: Pattern> ParallelIterator for SplitTerminator<'h, P> {
    type Item = &'h str;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<&'h str>>(self, consumer: C) -> C::Result {
        let skip_last = self.chars.is_empty() || self.terminator.is_suffix_of(self.chars);
        bridge_pieces(
            SplitProducer::new(self.chars, &self.terminator, skip_last),
            consumer,
        )
    }
}

/// Parallel iterator over the lines of a string ([`ParallelString::par_lines`]).
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct Lines<'h>(&'h str);

impl<'h> ParallelIterator for Lines<'h> {
    type Item = &'h str;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<&'h str>>(self, consumer: C) -> C::Result {
        // The pieces of `par_split_inclusive('\n')`, each read with std's `lines`: the same
        // items as std's `str::lines` of the whole string (a piece ends after a `\n` or at the
        // end), and std's own loop, which is faster than stripping the line endings here. (Only a
        // `\r` before a `\n` belongs to the line ending; rayon's also strips a final bare `\r`.)
        let producer = LinesProducer(SplitInclusiveProducer {
            data: self.0,
            tail: self.0.len(),
            pattern: &'\n',
        });
        bridge_pieces(producer, consumer)
    }
}

/// A piece of `par_lines`: a piece of `par_split_inclusive('\n')`, read with `str::lines`.
struct LinesProducer<'h, 'p>(SplitInclusiveProducer<'h, 'p, char>);

impl<'h> Piece for LinesProducer<'h, '_> {
    type Item = &'h str;
    type IntoIter = std::str::Lines<'h>;

    fn len(&self) -> usize {
        self.0.len()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.0.split_at(index);
        (LinesProducer(left), LinesProducer(right))
    }
    fn min_len(&self) -> usize {
        self.0.min_len()
    }
    fn into_iter(self) -> Self::IntoIter {
        self.0.data.lines()
    }
}

fn not_empty(s: &&str) -> bool {
    !s.is_empty()
}

/// Parallel iterator over the substrings separated by Unicode whitespace
/// ([`ParallelString::par_split_whitespace`]).
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct SplitWhitespace<'h>(&'h str);

impl<'h> ParallelIterator for SplitWhitespace<'h> {
    type Item = &'h str;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<&'h str>>(self, consumer: C) -> C::Result {
        self.0
            .par_split(char::is_whitespace)
            .filter(not_empty)
            .drive_lazy(consumer)
    }
}

/// Parallel iterator over the substrings separated by ASCII whitespace
/// ([`ParallelString::par_split_ascii_whitespace`]).
#[derive(Debug, Clone)]
#[must_use = "parallel iterators are lazy and do nothing unless consumed"]
pub struct SplitAsciiWhitespace<'h>(&'h str);

impl<'h> ParallelIterator for SplitAsciiWhitespace<'h> {
    type Item = &'h str;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive_unindexed_lazily(self, consumer)
    }

    fn drive_lazy<C: LazyConsumer<&'h str>>(self, consumer: C) -> C::Result {
        fn is_ascii_whitespace(c: char) -> bool {
            c.is_ascii_whitespace()
        }
        self.0
            .par_split(is_ascii_whitespace)
            .filter(not_empty)
            .drive_lazy(consumer)
    }
}
