//! The adaptors that fold each piece's items into one value and yield one value per piece:
//! `fold`, `fold_with`, `fold_chunks`/`fold_chunks_with`, `try_fold`/`try_fold_with`.

pub(crate) mod fold;
pub(crate) mod fold_chunks;
pub(crate) mod fold_with;
pub(crate) mod try_fold;
