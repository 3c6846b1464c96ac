//! One check for the payload of every known kind.

use super::error::PayloadError;
use super::kind::ExtKind;
use super::{commands, engine, layout, patch, simple};

/// Validates the payload of an extension record of kind `kind`.
///
/// Kinds with free-form payloads (comment, line comment, null move, junk,
/// verbatim text),
/// the reserved kinds 0x11 and 0x12 and unknown kinds accept any bytes; the
/// others are read whole by their codec, which refuses what it could not
/// decode (see `spec/extensions.md`). For the commands record this builds a
/// reader; a caller that checks many records reuses a [`PayloadChecker`].
///
/// # Errors
/// A [`PayloadError`] positioned within the payload.
pub fn check(kind: ExtKind, payload: &[u8]) -> Result<(), PayloadError> {
    PayloadChecker::default().check(kind, payload)
}

/// [`check`] with buffers kept from record to record, so that checking a
/// file's commands records allocates nothing once warm.
#[derive(Debug, Clone, Default)]
pub struct PayloadChecker {
    commands: commands::GameCommandsReader,
    notes: engine::GameNotesReader,
}

impl PayloadChecker {
    /// A checker.
    pub fn new() -> PayloadChecker {
        PayloadChecker::default()
    }

    /// See [`check`].
    ///
    /// # Errors
    /// A [`PayloadError`] positioned within the payload.
    pub fn check(&mut self, kind: ExtKind, payload: &[u8]) -> Result<(), PayloadError> {
        match kind {
            ExtKind::TERMINATION => simple::termination(payload).map(|_| ()),
            ExtKind::LONG_TAG => simple::long_tag(payload).map(|_| ()),
            ExtKind::LONG_NAG => simple::long_nag(payload).map(|_| ()),
            ExtKind::MOVE_SPELLING => simple::move_spelling(payload),
            ExtKind::WIDE_MOVE => simple::wide_move(payload).map(|_| ()),
            ExtKind::LAYOUT => layout::Layout::from_payload(payload).map(|_| ()),
            ExtKind::TEXT_PATCH => patch::check(payload),
            ExtKind::COMMANDS => self.commands.check(payload),
            ExtKind::ENGINE_NOTES => {
                let r = self.notes.load(payload);
                self.notes.clear();
                r
            }
            _ => Ok(()),
        }
    }
}
