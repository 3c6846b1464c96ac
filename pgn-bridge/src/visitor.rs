//! The push [`Visitor`] that the PGN lexer and [`crate::PgnReader`] drive.

use std::ops::ControlFlow;

/// Where a game starts in the input; passed to [`Visitor::begin_game`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct GameStart {
    /// 0-based number of the game in the input.
    pub index: u64,
    /// Byte offset of the game's first byte in the input.
    pub offset: u64,
    /// 1-based line number of the game's first byte.
    pub line: u64,
}

/// Returned by [`Visitor::begin_variation`]: `Skip(true)` skips the
/// variation up to its closing `)` (the same type as pgc-core's walker uses).
pub use pgc_core::Skip;

/// Receives the tokens of PGN games, in input order.
///
/// Every method except [`Visitor::end_game`] has a default that does nothing
/// and goes on, so a consumer implements only what it needs. All byte slices
/// borrow the reader's buffer and are exact input bytes: nothing is decoded,
/// unescaped or re-encoded (PGN files in the wild are ASCII, UTF-8, Latin-1
/// or legacy code pages; the consumer decides).
///
/// # Order of events for one game
///
/// ```text
/// begin_game
///   [bom]                                   (only for the first game of the input)
///   (tag | whitespace | escape_line | line_comment | junk)*
///   end_tags
///   begin_movetext                          (always, even without movetext)
///   (move_number | san | en_passant_marker | nag_token->nag | comment
///    | begin_variation [skipped tokens] end_variation
///    | outcome | whitespace | escape_line | line_comment | junk)*
/// end_game(raw)
/// ```
///
/// A game ends (PGN standard, section 8.2.6) after a termination marker at
/// variation depth 0, when a `[` appears after movetext started (a new tag
/// section: the previous game lacked its marker), or at the end of the input.
/// After the termination marker only whitespace, `%` escape lines, `;`
/// comments and junk can follow inside the same game (e.g. the Arena
/// `; { Game Nr. 1 ... }` lines TCEC files put after each result).
/// Variations are reported as written: if a game ends while variations are
/// still open, no `end_variation` is synthesised.
///
/// # Stopping early
///
/// Every callback but [`Visitor::end_game`] returns a
/// [`ControlFlow`]`<()>`:
///
/// * `Continue(())` goes on with the next event;
/// * `Break(())` skips the rest of the game: no further event is reported
///   until [`Visitor::end_game`], which comes next and still gets the
///   complete raw game. The game's end is found as usual, so the next game
///   is read normally. Breaking in [`Visitor::begin_game`] skips the whole
///   game (the cheapest way to copy or count raw games); breaking in
///   [`Visitor::end_tags`] skips its movetext.
///
/// [`Visitor::begin_variation`] answers `Continue(Skip(true))` to skip one
/// variation: the lexer reports nothing (not even whitespace) up to the `)`
/// that closes it, then [`Visitor::end_variation`] for that `)`. Variations
/// nested in it, and `(` or `)` inside its comments, are skipped with it.
/// If the game ends before the variation is closed, [`Visitor::end_game`]
/// comes next. Skipped bytes are only seen in `end_game`'s raw slice.
///
/// ```
/// use std::ops::ControlFlow;
/// use pgn_bridge::PgnReader;
/// use pgn_bridge::{Skip, Visitor};
///
/// /// The first two moves of each game's main line.
/// #[derive(Default)]
/// struct Opening(Vec<String>);
///
/// impl Visitor for Opening {
///     type Output = Vec<String>;
///     fn san(&mut self, token: &[u8]) -> ControlFlow<()> {
///         self.0.push(String::from_utf8_lossy(token).into_owned());
///         if self.0.len() == 2 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
///     }
///     fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
///         ControlFlow::Continue(Skip(true))
///     }
///     fn end_game(&mut self, _raw: &[u8]) -> Vec<String> {
///         std::mem::take(&mut self.0)
///     }
/// }
///
/// let pgn = b"1. e4 (1. d4 d5) e5 2. Nf3 *\n1. c4 {(or 1. Nf3)} e5 1-0\n";
/// let mut reader = PgnReader::new(&pgn[..]);
/// let mut v = Opening::default();
/// assert_eq!(reader.read_game(&mut v)?, Some(vec!["e4".into(), "e5".into()]));
/// assert_eq!(reader.read_game(&mut v)?, Some(vec!["c4".into(), "e5".into()]));
/// assert_eq!(reader.read_game(&mut v)?, None);
/// # Ok::<(), pgn_bridge::PgnError>(())
/// ```
pub trait Visitor {
    /// Value produced for each game by [`Visitor::end_game`].
    type Output;

    /// Called first for every game.
    ///
    /// `offset` is the byte offset of the game's first byte in the input,
    /// `line` its 1-based line, `index` the 0-based game number.
    fn begin_game(&mut self, _start: GameStart) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// The input starts with a UTF-8 byte order mark (`EF BB BF`).
    ///
    /// Only reported for the first game and only at input offset 0; the three
    /// bytes are part of that game's raw slice.
    fn bom(&mut self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// A tag pair (standard section 8.1.1).
    ///
    /// `value` is the raw bytes between the quotes, still escaped (`\"` and
    /// `\\` kept as written). Both are exact input bytes. A value whose
    /// closing quote is itself preceded by a backslash (`[Event "Cup \"]`,
    /// seen in real files) ends at the last quote before the `]` of its line,
    /// so `value` ends with a lone backslash.
    fn tag(&mut self, _name: &[u8], _value: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// End of the tag section, right before [`Visitor::begin_movetext`].
    ///
    /// Return `Break(())` to skip the movetext of this game.
    fn end_tags(&mut self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// After the tag section, before the first movetext token (called even
    /// when there is no movetext).
    fn begin_movetext(&mut self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// A move number indication exactly as written.
    ///
    /// `raw` is e.g. `b"12."`, `b"12..."`, `b"12"`, or `b"1 ."` / `b"1. ..."`
    /// (dots separated from the number by whitespace are folded in, and the
    /// whitespace is part of `raw`, not reported separately). `number` is
    /// parsed saturating; `dots` counts all dots (saturating), so `1.` gives 1,
    /// `1...` gives 3, `1. ...` gives 4: treat `dots >= 2` as "Black to move".
    fn move_number(&mut self, _number: u32, _dots: u8, _raw: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// A SAN (or other move-like) token exactly as written.
    ///
    /// Any token starting with an ASCII letter, a digit, `-` or `@` that is
    /// neither a move number nor a termination marker: `e4`, `O-O+`, `0-0`,
    /// `e8Q`, `Nge2`, `g1f3`, `P@e4` and null moves (`--`, `Z0`, `0000`,
    /// `@@@@`); the consumer decides. Suffix annotations (`!`, `?`, `!!`,
    /// `??`, `!?`, `?!`) are not part of the token: they are reported as
    /// [`Visitor::nag`] right after. Check marks `+`/`#` stay in the token.
    fn san(&mut self, _token: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// An en passant marker `e.p.` after a move (import format, glued as in
    /// `exd6e.p.` or separate as in `exd6 e.p.`).
    ///
    /// The move itself is reported by [`Visitor::san`] without the marker;
    /// `raw` is always `b"e.p."`. Ignore it unless you preserve layout.
    fn en_passant_marker(&mut self, _raw: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// A NAG with its raw bytes: `$n` (`raw` = `b"$n"`) or a suffix
    /// annotation (`raw` = `b"!?"` etc.).
    ///
    /// The default forwards to [`Visitor::nag`]; override this instead of
    /// `nag` to see leading zeros or overflowing digits.
    fn nag_token(&mut self, _raw: &[u8], nag: u32, is_suffix: bool) -> ControlFlow<()> {
        self.nag(nag, is_suffix)
    }

    /// A NAG: `$n` (n parsed as u32, saturating; `is_suffix = false`) or a
    /// suffix annotation (`is_suffix = true`, `!`=1, `?`=2, `!!`=3, `??`=4,
    /// `!?`=5, `?!`=6).
    fn nag(&mut self, _nag: u32, _is_suffix: bool) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// A brace comment: the bytes strictly between `{` and `}`, exactly
    /// (newlines, CR, spaces kept). A `{` without a closing brace before the
    /// end of the input is reported as [`Visitor::junk`] instead.
    fn comment(&mut self, _text: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// A `;` comment: the bytes after `;` up to, not including, the line end
    /// (a `\r` before the `\n` is excluded too).
    fn line_comment(&mut self, _text: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// A `%` escape line (standard section 6; only at column 1): the bytes
    /// after `%` up to the line end (no `\r`).
    fn escape_line(&mut self, _text: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// `(`: a recursive annotation variation starts.
    ///
    /// Return `Continue(Skip(true))` to skip it up to its closing `)`
    /// (reported by [`Visitor::end_variation`]); the default reports its
    /// tokens.
    fn begin_variation(&mut self) -> ControlFlow<(), Skip> {
        ControlFlow::Continue(Skip(false))
    }

    /// `)`: the innermost open variation ends.
    fn end_variation(&mut self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// The termination marker as written: `b"1-0"`, `b"0-1"`, `b"1/2-1/2"`
    /// or `b"*"`. Also reported inside variations (some files mark a
    /// continuation with `(*`); only one at depth 0 ends the game.
    fn outcome(&mut self, _raw: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// A run of whitespace between two tokens, exactly as in the input.
    ///
    /// Whitespace is space, `\t`, `\n`, `\r`, `\x0b`, `\x0c` and NUL (real
    /// files end with NUL padding). Called for every run between consecutive
    /// tokens, including before the first tag and after the last token of the
    /// game (the whitespace between two games belongs to the earlier one).
    fn whitespace(&mut self, _ws: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// Bytes the lexer could not understand, reported and otherwise ignored:
    /// junk tokens such as `<br`, `/>`, an unmatched `)` or `}`, a stray `$`
    /// or `.`, a malformed tag pair (whole, from `[` to its `]` or the line
    /// end), an unterminated `{` comment (to the end of the input).
    fn junk(&mut self, _raw: &[u8]) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// End of game, always called, also after a `Break`. `raw` is the exact
    /// input bytes of this game, from its start up to the start of the next
    /// game; the raw slices of all games concatenated equal the input
    /// (except an input consisting only of whitespace, which has no game).
    fn end_game(&mut self, raw: &[u8]) -> Self::Output;
}
