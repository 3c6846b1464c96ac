//! Where a game's typed comments stand and which template each uses: the
//! placement and template runs shared by the commands record (kind 0x10)
//! and the engine-notes record (kind 0x14).
//!
//! ```text
//! placement     = u:R, R × (u:gap, u:count)   runs of consecutive typed anchors
//! template-runs = u:K, K × (u:template, u:count)   only when there are 2+ templates
//! ```
//!
//! A writer pushes `(anchor, template)` pairs with increasing anchors; a
//! reader asks, anchor by anchor in increasing order, which comment (its
//! number in record order) follows it, and takes the template of each
//! comment in record order.

use super::cursor::Bytes;
use super::error::{Found, PayloadError};
use crate::item::put_varint;

/// The placement and template runs of one record, with a reader's cursors.
#[derive(Debug, Clone, Default)]
pub(super) struct Placement {
    /// (first anchor, count) of each run of consecutive typed anchors.
    runs: Vec<(u64, u64)>,
    /// (template, comment count) runs, in record order.
    template_runs: Vec<(u32, u64)>,
    // Reader cursors.
    run: usize,
    /// Comments in the runs before `run`.
    run_base: u64,
    /// Comments handed out (or skipped) so far.
    consumed: u64,
    trun: usize,
    trun_used: u64,
}

impl Placement {
    /// Forgets everything, keeping the buffers.
    pub(super) fn clear(&mut self) {
        self.runs.clear();
        self.template_runs.clear();
        self.run = 0;
        self.run_base = 0;
        self.consumed = 0;
        self.trun = 0;
        self.trun_used = 0;
    }

    /// Whether a comment can follow `anchor` (anchors must increase).
    pub(super) fn accepts(&self, anchor: u64) -> bool {
        self.runs.last().is_none_or(|&(s, n)| anchor >= s + n)
    }

    /// Records a comment of template `t` after `anchor` (the caller checked
    /// [`Placement::accepts`]).
    pub(super) fn push(&mut self, anchor: u64, t: u32) {
        match self.template_runs.last_mut() {
            Some((last, n)) if *last == t => *n += 1,
            _ => self.template_runs.push((t, 1)),
        }
        match self.runs.last_mut() {
            Some((s, n)) if *s + *n == anchor => *n += 1,
            _ => self.runs.push((anchor, 1)),
        }
    }

    /// The number of comments placed.
    pub(super) fn comments(&self) -> u64 {
        self.runs.iter().map(|&(_, n)| n).sum()
    }

    /// Whether no comment is placed.
    pub(super) fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The (template, count) runs in record order.
    pub(super) fn template_runs(&self) -> &[(u32, u64)] {
        &self.template_runs
    }

    /// Appends the placement and, with `templates` above 1, the template
    /// runs.
    pub(super) fn write(&self, out: &mut Vec<u8>, templates: usize) {
        put_varint(out, self.runs.len() as u64);
        let mut next = 0;
        for &(s, n) in &self.runs {
            put_varint(out, s - next);
            put_varint(out, n);
            next = s + n;
        }
        if templates > 1 {
            put_varint(out, self.template_runs.len() as u64);
            for &(t, n) in &self.template_runs {
                put_varint(out, u64::from(t));
                put_varint(out, n);
            }
        }
    }

    /// Reads what [`Placement::write`] wrote, for a record of `templates`
    /// templates; returns the number of comments.
    pub(super) fn read(
        &mut self,
        r: &mut Bytes<'_>,
        templates: usize,
    ) -> Result<u64, PayloadError> {
        self.clear();
        let p = r.count(2, "a count of runs of commented anchors")?;
        self.runs.reserve(p);
        let mut next = 0u64;
        let mut comments = 0u64;
        for _ in 0..p {
            let at = r.pos;
            let gap = r.u64("the gap before a run of commented anchors")?;
            let n = r.u64("the length of a run of commented anchors")?;
            let start = next.checked_add(gap);
            let end = start.and_then(|s| s.checked_add(n));
            match (start, end) {
                (Some(s), Some(e)) if n > 0 && (gap > 0 || self.runs.is_empty()) => {
                    self.runs.push((s, n));
                    next = e;
                    comments = comments.checked_add(n).ok_or_else(|| {
                        r.err_at(at, "at most 2^64 - 1 comments", Found::Value(n))
                    })?;
                }
                _ if n == 0 => {
                    return Err(r.err_at(
                        at,
                        "a run of one or more commented anchors",
                        Found::Value(0),
                    ));
                }
                _ => {
                    return Err(r.err_at(
                        at,
                        "a gap of 1 or more between runs, within 64 bits",
                        Found::Value(gap),
                    ));
                }
            }
        }
        if comments == 0 {
            return Err(r.err_at(
                r.pos.saturating_sub(1),
                "at least one run of commented anchors",
                Found::Value(0),
            ));
        }
        if templates == 1 {
            self.template_runs.push((0, comments));
            return Ok(comments);
        }
        let n = r.count(2, "a count of template runs")?;
        self.template_runs.reserve(n);
        let mut total = 0u64;
        for _ in 0..n {
            let at = r.pos;
            let ti = r.u64("a template number")?;
            if ti >= templates as u64 {
                return Err(r.err_at(
                    at,
                    "a template number below the template count",
                    Found::Value(ti),
                ));
            }
            let at = r.pos;
            let k = r.u64("a template run length")?;
            if k == 0 {
                return Err(r.err_at(
                    at,
                    "a template run of one or more comments",
                    Found::Value(0),
                ));
            }
            total = total
                .checked_add(k)
                .filter(|&x| x <= comments)
                .ok_or_else(|| {
                    r.err_at(
                        at,
                        "template runs covering exactly the commented anchors",
                        Found::Value(k),
                    )
                })?;
            self.template_runs.push((ti as u32, k));
        }
        if total != comments {
            return Err(r.err_at(
                r.pos.saturating_sub(1),
                "template runs covering exactly the commented anchors",
                Found::Value(total),
            ));
        }
        Ok(comments)
    }

    /// Whether anchor `anchor` carries a comment.
    pub(super) fn has_comment_at(&self, anchor: u64) -> bool {
        self.runs
            .binary_search_by(|&(s, n)| {
                if anchor < s {
                    std::cmp::Ordering::Greater
                } else if anchor >= s + n {
                    std::cmp::Ordering::Less
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
    }

    /// The number, in record order, of the comment after `anchor`, if it
    /// has one not yet handed out. Ask for anchors in increasing order:
    /// the cursors never go back.
    pub(super) fn comment_at(&mut self, anchor: u64) -> Option<u64> {
        while let Some(&(s, n)) = self.runs.get(self.run) {
            if anchor < s + n {
                break;
            }
            self.run += 1;
            self.run_base += n;
        }
        let &(s, _) = self.runs.get(self.run)?;
        if anchor < s {
            return None;
        }
        let ordinal = self.run_base + (anchor - s);
        (ordinal >= self.consumed).then_some(ordinal)
    }

    /// Comments handed out or skipped so far.
    pub(super) fn consumed(&self) -> u64 {
        self.consumed
    }

    /// The template of the next comment in record order, which counts as
    /// handed out; `None` past the last.
    pub(super) fn next_template(&mut self) -> Option<u32> {
        let &(t, k) = self.template_runs.get(self.trun)?;
        self.consumed += 1;
        self.trun_used += 1;
        if self.trun_used >= k {
            self.trun += 1;
            self.trun_used = 0;
        }
        Some(t)
    }
}
