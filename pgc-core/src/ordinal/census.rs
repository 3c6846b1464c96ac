//! Legal moves of one position, counted per SAN class without generating
//! them.
//!
//! A move ordinal is the number of legal moves whose SAN sorts before the
//! played one. SAN strings that start with different characters compare by
//! that character alone, and every piece type, castling and each pawn file
//! has its own first character (`B K N O Q R a … h`, the 14 *classes*, in
//! ASCII order). So an ordinal needs only how many legal moves each earlier
//! class holds, and the SAN order inside one class.
//!
//! [`Census`] counts a class from the legal target squares of each piece
//! (one attack-table look-up and a popcount per piece), and when asked gives
//! the SAN sort keys of a single class, built straight from the target
//! squares: no `Move` list, no `String`. Each key holds the SAN body in its
//! top six bytes and the move's *code* (origin, target, promotion, a flag
//! for castling and en passant) in its low 16 bits, so the chosen key turns
//! back into a shakmaty `Move`. The classes are counted lazily, in order, so
//! decoding a bishop move counts bishops alone.
//!
//! Legality is shakmaty's: the attacks are `shakmaty::attacks`' (bishops,
//! rooks and queens re-indexed into tables that stay in the L1 cache,
//! [`super::slider`], built from shakmaty's and tested equal to them), and
//! the masks applied are those of shakmaty's own generator (`legal_moves`): out
//! of check every square not ours; in single check the checker and the
//! squares between it and the king; in double check none; a pinned piece
//! stays on the line through its king; the king goes to no attacked square
//! (its own square removed from the occupancy, so it cannot hide behind
//! itself). En passant legality is asked of shakmaty (`Position::is_legal`,
//! once per position); castling is decided as shakmaty's castling generator
//! decides it, with the position's own attack test ([`Census::castle`]).
//! Tests compare counts and moves with `legal_moves` class by class here,
//! and `tests/tests/ordinal_props.rs` (crate pgc-tests) compares every
//! ordinal's move with the naive sort on random games and on every corpus
//! position.

use arrayvec::ArrayVec;
use shakmaty::{
    Bitboard, CastlingSide, Color, File, Move, Piece, Position, Rank, Role, Square, attacks,
};

use super::key::{CASTLE, CLASSES, KeyBuilder, MAX_ORDINALS, PAWNS, role_char};
use super::slider;

/// The SAN sort keys of one class (see the module doc).
pub(crate) type Keys = ArrayVec<u64, MAX_ORDINALS>;

/// The pieces of one class with their legal targets (at most 16 under the
/// census bound).
type Pieces = ArrayVec<(Square, Bitboard), 16>;

/// Code bit: the move castles (class `O`) or takes en passant (a pawn class).
const SPECIAL: u64 = 1 << 15;

/// The piece type of the non-pawn, non-castling classes.
const ROLE_OF: [Role; 6] = [
    Role::Bishop,
    Role::King,
    Role::Knight,
    Role::King, // castling: not used
    Role::Queen,
    Role::Rook,
];

/// File masks shifted by one: `FILES[f + 1]` is file `f`, and the ends are
/// empty, so `FILES[f]` and `FILES[f + 2]` are the neighbouring files.
const FILES: [Bitboard; 10] = {
    let mut files = [Bitboard::EMPTY; 10];
    let mut f = 0;
    while f < 8 {
        files[f + 1] = Bitboard(0x0101_0101_0101_0101 << f);
        f += 1;
    }
    files
};

/// The legal pawn moves of the pawns that are not pinned, as target sets
/// (en passant aside): one step, two steps, captures towards the a-file
/// (`west`) and towards the h-file (`east`). Computed once per position,
/// when the first pawn class is counted.
#[derive(Clone, Copy)]
struct PawnSets {
    single: Bitboard,
    double: Bitboard,
    west: Bitboard,
    east: Bitboard,
    /// Our pawns that can take en passant legally (at most two), and the
    /// en passant square.
    ep_from: Bitboard,
    ep_to: Square,
}

impl PawnSets {
    /// The targets of the unpinned pawns on `file`: one step, two steps,
    /// captures towards the a-file and towards the h-file.
    #[inline(always)]
    fn on_file(&self, file: usize) -> [Bitboard; 4] {
        [
            self.single & FILES[file + 1],
            self.double & FILES[file + 1],
            self.west & FILES[file],
            self.east & FILES[file + 2],
        ]
    }

    /// How many targets the unpinned pawns on `file` have (a promotion
    /// square counted once, en passant aside).
    #[inline(always)]
    fn count_on_file(&self, file: usize) -> usize {
        let [single, double, west, east] = self.on_file(file);
        single.count() + double.count() + west.count() + east.count()
    }
}

/// What decides legality in one position, computed once; classes are then
/// counted or listed on demand.
pub(crate) struct Census<'a, P> {
    pos: &'a P,
    core: Core,
    pawns: Option<PawnSets>,
    /// The king's legal targets, once counted.
    king_targets: Bitboard,
}

/// What decides legality in one position, found from its board and side
/// to move alone (castling and en passant are asked of the position when
/// needed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Core {
    turn: Color,
    king: Square,
    occupied: Bitboard,
    them: Bitboard,
    /// Squares a piece other than the king may move to (see the module doc).
    target: Bitboard,
    /// Our pieces that alone stand between our king and an enemy slider.
    pinned: Bitboard,
    in_check: bool,
}

impl Core {
    /// The core of `pos`'s census, or `None` when the fast path does not
    /// apply: no king of the side to move (not standard chess), or so much
    /// material that the position could have more than 256 legal moves
    /// (the caller then generates all moves and reports the count).
    /// Always inlined: called out of line, its result goes through memory
    /// (`pgc moves` 12 % slower).
    #[inline(always)]
    pub(crate) fn of<P: Position>(pos: &P) -> Option<Core> {
        let board = pos.board();
        let turn = pos.turn();
        let king = board.king_of(turn)?;
        let us = board.by_color(turn);
        // At most 16 pieces with at most 2 queens: 2 × 27 (queens) + 13 × 14
        // (a rook's most) + 10 (king and castling) = 246 moves at most.
        if us.count() > 16 || (board.queens() & us).count() > 2 {
            return None;
        }
        let them = board.by_color(!turn);
        let occupied = board.occupied();
        // Enemy sliders that would see the king on an empty board: with
        // nothing between, a checker; with one piece between, that piece,
        // if ours, is pinned. The other checkers come from the attack
        // tables (shakmaty's `attacks_to`, the sliders taken from here).
        let mut checkers = leaper_checkers(board, turn, king);
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers(board, turn, king) {
            let b = attacks::between(king, sniper) & occupied;
            if b.is_empty() {
                checkers.add(sniper);
            } else if !b.more_than_one() {
                pinned |= b & us;
            }
        }
        let target = if checkers.is_empty() {
            !us
        } else if let Some(checker) = checkers.single_square() {
            attacks::between(king, checker).with(checker)
        } else {
            Bitboard::EMPTY
        };
        Some(Core {
            turn,
            king,
            occupied,
            them,
            target,
            pinned,
            in_check: checkers.any(),
        })
    }
}

impl<'a, P: Position> Census<'a, P> {
    /// The census of `pos` ([`Core::of`]).
    #[inline(always)]
    pub(crate) fn new(pos: &'a P) -> Option<Census<'a, P>> {
        Core::of(pos).map(|core| Census::with(pos, core))
    }

    /// The census of `pos` from its core, found before.
    #[inline(always)]
    pub(crate) fn with(pos: &'a P, core: Core) -> Census<'a, P> {
        Census {
            pos,
            core,
            pawns: None,
            king_targets: Bitboard::EMPTY,
        }
    }

    /// Whether the side to move is in check.
    #[inline(always)]
    pub(crate) fn in_check(&self) -> bool {
        self.core.in_check
    }

    /// Whether the side to move in `pos` is in check (`None` without a
    /// king of that side): [`Core::of`]'s checkers, found without the
    /// pins and without shakmaty's magic attack table.
    #[inline]
    pub(crate) fn is_check(pos: &P) -> Option<bool> {
        let board = pos.board();
        let turn = pos.turn();
        let king = board.king_of(turn)?;
        if leaper_checkers(board, turn, king).any() {
            return Some(true);
        }
        let occupied = board.occupied();
        Some(
            snipers(board, turn, king)
                .into_iter()
                .any(|s| !attacks::between(king, s).intersects(occupied)),
        )
    }

    /// Squares our non-king, non-pawn piece `role` on `from` attacks.
    #[inline(always)]
    fn piece_attacks(&self, role: Role, from: Square) -> Bitboard {
        match role {
            Role::Knight => attacks::knight_attacks(from),
            Role::Bishop => slider::bishop_attacks(from, self.core.occupied),
            Role::Rook => slider::rook_attacks(from, self.core.occupied),
            _ => slider::queen_attacks(from, self.core.occupied),
        }
    }

    /// Legal targets of our non-king, non-pawn piece `role` on `from`.
    #[inline(always)]
    fn piece_targets(&self, role: Role, from: Square) -> Bitboard {
        let t = self.piece_attacks(role, from) & self.core.target;
        if self.core.pinned.contains(from) {
            t & attacks::ray(self.core.king, from)
        } else {
            t
        }
    }

    /// Legal moves of our pieces of class `class` (bishop, knight, queen,
    /// rook).
    #[inline(always)]
    fn count_role(&self, class: usize) -> usize {
        let role = ROLE_OF[class];
        let pieces = self.ours(role);
        let mut n = 0;
        if pieces.intersects(self.core.pinned) {
            for from in pieces {
                n += self.piece_targets(role, from).count();
            }
        } else {
            for from in pieces {
                n += (self.piece_attacks(role, from) & self.core.target).count();
            }
        }
        n
    }

    /// The target sets of the pawns that are not pinned, computed on first
    /// use.
    #[inline(always)]
    fn pawn_sets(&mut self) -> PawnSets {
        match self.pawns {
            Some(sets) => sets,
            None => self.compute_pawn_sets(),
        }
    }

    /// Computes and keeps the pawn target sets.
    #[inline(never)]
    fn compute_pawn_sets(&mut self) -> PawnSets {
        let empty = !self.core.occupied.0;
        let pawns = self.ours(Role::Pawn).without(self.core.pinned).0;
        let (west, east) = (pawns & !FILES[1].0, pawns & !FILES[8].0);
        // Shifts by constants, one branch on the side to move (shakmaty's
        // `Bitboard::shift` branches on the sign of a run-time offset).
        let (single, double, west, east) = match self.core.turn {
            Color::White => {
                let single = pawns << 8 & empty;
                let double = (single & Bitboard::from_rank(Rank::Third).0) << 8 & empty;
                (single, double, west << 7, east << 9)
            }
            Color::Black => {
                let single = pawns >> 8 & empty;
                let double = (single & Bitboard::from_rank(Rank::Sixth).0) >> 8 & empty;
                (single, double, west >> 9, east >> 7)
            }
        };
        let (single, double) = (Bitboard(single), Bitboard(double));
        let (west, east) = (
            Bitboard(west) & self.core.them,
            Bitboard(east) & self.core.them,
        );
        let (ep_from, ep_to) = self.en_passant_origins();
        let sets = PawnSets {
            single: single & self.core.target,
            double: double & self.core.target,
            west: west & self.core.target,
            east: east & self.core.target,
            ep_from,
            ep_to,
        };
        self.pawns = Some(sets);
        sets
    }

    /// Legal moves of our pawns on `file`, en passant included.
    #[inline]
    fn count_pawns(&mut self, file: usize) -> usize {
        if self.pawns_on(file).is_empty() {
            return 0;
        }
        let s = self.pawn_sets();
        let [single, double, west, east] = s.on_file(file);
        let mut n = single.count() + double.count() + west.count() + east.count();
        if ((single | west | east) & Bitboard::BACKRANKS).any() {
            // A promotion is four moves.
            n += 3
                * ((single & Bitboard::BACKRANKS).count()
                    + (west & Bitboard::BACKRANKS).count()
                    + (east & Bitboard::BACKRANKS).count());
        }
        for from in self.pawns_on(file) & self.core.pinned {
            let t = self.pawn_targets(from);
            n += t.count() << (2 * usize::from(t.intersects(Bitboard::BACKRANKS)));
        }
        n + (s.ep_from & FILES[file + 1]).count()
    }

    /// Legal targets of our pawn on `from`, en passant aside.
    #[inline(always)]
    fn pawn_targets(&self, from: Square) -> Bitboard {
        let forward = self.core.turn.fold_wb(8, -8);
        let empty = !self.core.occupied;
        let single = Bitboard::from_square(from).shift(forward) & empty;
        let double = if from.rank() == self.core.turn.fold_wb(Rank::Second, Rank::Seventh) {
            single.shift(forward) & empty
        } else {
            Bitboard::EMPTY
        };
        let captures = attacks::pawn_attacks(self.core.turn, from) & self.pos.them();
        let t = (single | double | captures) & self.core.target;
        if self.core.pinned.contains(from) {
            t & attacks::ray(self.core.king, from)
        } else {
            t
        }
    }

    /// Legal targets of the king (castling aside).
    #[inline]
    fn king_targets(&self) -> Bitboard {
        let board = self.pos.board();
        let them = self.core.them;
        // Squares the enemy knights, pawns and king attack, whole sets at
        // once (shakmaty's attack tables; pawns by shifting their set).
        let pawns = board.pawns() & them;
        let (west, east) = (pawns & !FILES[1], pawns & !FILES[8]);
        let mut danger = match self.core.turn {
            // Black pawns attack down the board, white ones up.
            Color::White => Bitboard(west.0 >> 9 | east.0 >> 7),
            Color::Black => Bitboard(west.0 << 7 | east.0 << 9),
        };
        if let Some(k) = (board.kings() & them).first() {
            danger |= attacks::king_attacks(k);
        }
        for knight in board.knights() & them {
            danger |= attacks::knight_attacks(knight);
        }
        let t = attacks::king_attacks(self.core.king) & !board.by_color(self.core.turn) & !danger;
        if t.is_empty() {
            return t;
        }
        // Enemy sliders whose lines cross a remaining square, each with
        // our king off the board (it cannot shelter behind itself).
        let without_king = self.core.occupied.without(self.core.king);
        // First the sliders that matter, without branching on each, then
        // their look-ups.
        let (mut diagonal, mut straight) = (0, 0);
        for s in board.bishops_and_queens() & them {
            diagonal |=
                u64::from((Bitboard(slider::BISHOP_LINES[s as usize]) & t).any()) << (s as u32);
        }
        for s in board.rooks_and_queens() & them {
            straight |=
                u64::from((Bitboard(slider::ROOK_LINES[s as usize]) & t).any()) << (s as u32);
        }
        let mut attacked = Bitboard::EMPTY;
        for s in Bitboard(diagonal) {
            attacked |= slider::bishop_attacks(s, without_king);
        }
        for s in Bitboard(straight) {
            attacked |= slider::rook_attacks(s, without_king);
        }
        t & !attacked
    }

    /// Legal king moves (castling aside), noting their targets.
    #[inline(always)]
    fn count_king(&mut self) -> usize {
        let t = self.king_targets();
        self.king_targets = t;
        t.count()
    }

    /// Our pieces of `role`.
    #[inline(always)]
    fn ours(&self, role: Role) -> Bitboard {
        self.pos.board().by_piece(Piece {
            color: self.core.turn,
            role,
        })
    }

    /// Our pawns on `file`.
    #[inline(always)]
    fn pawns_on(&self, file: usize) -> Bitboard {
        self.ours(Role::Pawn) & Bitboard::from_file(File::new(file as u32))
    }

    /// Our pawns that can take en passant legally, decided by shakmaty
    /// (`Position::is_legal`), and the en passant square (A1 when there is
    /// none).
    #[inline]
    fn en_passant_origins(&self) -> (Bitboard, Square) {
        let Some(to) = self.pos.maybe_ep_square() else {
            return (Bitboard::EMPTY, Square::A1);
        };
        let mut from = Bitboard::EMPTY;
        for f in self.ours(Role::Pawn) & attacks::pawn_attacks(!self.core.turn, to) {
            if self.pos.is_legal(Move::EnPassant { from: f, to }) {
                from.add(f);
            }
        }
        (from, to)
    }

    /// The legal en passant capture by our pawn on `file`, if any.
    #[inline]
    fn en_passant(&mut self, file: usize) -> Option<Move> {
        let s = self.pawn_sets();
        let from = (s.ep_from & FILES[file + 1]).first()?;
        Some(Move::EnPassant { from, to: s.ep_to })
    }

    /// The legal castling move to `side`, decided as shakmaty's castling
    /// generator decides it (`gen_castling_moves`, which `is_legal` runs
    /// after generating every castling move): the squares between king and
    /// rook and their targets are empty (`Castles::path`), the king is not
    /// in check, it crosses no attacked square, and its target is not
    /// attacked once king and rook have moved (in Chess960 a rook can
    /// shield the king's target until it moves). The attacks are the
    /// position's own (`Position::king_attackers`).
    #[inline(always)]
    fn castle(&self, side: CastlingSide) -> Option<Move> {
        if self.core.in_check {
            return None;
        }
        let castles = self.pos.castles();
        let rook = castles.rook(self.core.turn, side)?;
        if castles
            .path(self.core.turn, side)
            .intersects(self.core.occupied)
        {
            return None;
        }
        self.castle_unattacked(side, rook).then_some(Move::Castle {
            king: self.core.king,
            rook,
        })
    }

    /// Whether castling to `side` with `rook` crosses and ends on squares
    /// the enemy does not attack (see [`Census::castle`]).
    #[inline(never)]
    fn castle_unattacked(&self, side: CastlingSide, rook: Square) -> bool {
        let king_to = side.king_to(self.core.turn);
        let after = self.core.occupied ^ self.core.king ^ rook ^ side.rook_to(self.core.turn);
        if self
            .pos
            .king_attackers(king_to, !self.core.turn, after)
            .any()
        {
            return false;
        }
        let without_king = self.core.occupied ^ self.core.king;
        attacks::between(self.core.king, king_to)
            .into_iter()
            .all(|sq| {
                self.pos
                    .king_attackers(sq, !self.core.turn, without_king)
                    .is_empty()
            })
    }

    /// The class holding the move with ordinal `ordinal` and the move's
    /// index inside the class; `Err` with the number of legal moves when the
    /// ordinal is out of range. Classes are counted in ASCII order and no
    /// further than needed.
    #[inline]
    pub(crate) fn locate(&mut self, ordinal: usize) -> Result<(usize, usize), usize> {
        let mut rest = ordinal;
        macro_rules! step {
            ($class:expr, $count:expr) => {
                let n = $count;
                if rest < n {
                    return Ok(($class, rest));
                }
                rest -= n;
            };
        }
        step!(0, self.count_role(0));
        step!(1, self.count_king());
        step!(2, self.count_role(2));
        step!(CASTLE, self.count(CASTLE));
        step!(4, self.count_role(4));
        step!(5, self.count_role(5));
        // Files without a pawn of ours hold no moves. Without promotions,
        // pinned pawns or en passant, a file's moves are its pawns' targets.
        let pawns = self.ours(Role::Pawn);
        let mut files = file_set(pawns);
        if files != 0 {
            let s = self.pawn_sets();
            let plain = !pawns.intersects(self.core.pinned)
                && s.ep_from.is_empty()
                && !(s.single | s.west | s.east).intersects(Bitboard::BACKRANKS);
            while files != 0 {
                let file = files.trailing_zeros() as usize;
                files &= files - 1;
                let n = if plain {
                    s.count_on_file(file)
                } else {
                    self.count_pawns(file)
                };
                step!(PAWNS + file, n);
            }
        }
        Err(ordinal - rest)
    }

    /// How many legal moves the classes from `class` on hold (after
    /// [`Census::locate`] found the move in `class`, this completes the
    /// count of the position's legal moves).
    #[inline]
    pub(crate) fn count_from(&mut self, class: usize) -> usize {
        self.count_classes(class, CLASSES)
    }

    /// How many legal moves the classes before `class` hold. Out of line:
    /// inlined, it took the encoder's move path out of its token handler
    /// (0.9 % more instructions).
    #[inline(never)]
    pub(crate) fn count_below(&mut self, class: usize) -> usize {
        self.count_classes(0, class)
    }

    /// How many legal moves the classes `first..end` hold: the piece
    /// classes one by one, then the pawns of those files as whole target
    /// sets (no call per class or per file).
    #[inline(always)]
    fn count_classes(&mut self, first: usize, end: usize) -> usize {
        let within = |class: usize| first <= class && class < end;
        let mut n = 0;
        if within(0) {
            n += self.count_role(0);
        }
        if within(1) {
            n += self.count_king();
        }
        if within(2) {
            n += self.count_role(2);
        }
        if within(CASTLE) {
            n += self.count(CASTLE);
        }
        if within(4) {
            n += self.count_role(4);
        }
        if within(5) {
            n += self.count_role(5);
        }
        if end > PAWNS {
            n += self.count_pawn_files(first.saturating_sub(PAWNS), end - PAWNS);
        }
        n
    }

    /// Legal moves of our pawns on the files `first..end` (`end` ≤ 8),
    /// from the whole target sets: a capture towards the a-file lands one
    /// file left of its pawn, one towards the h-file one file right.
    #[inline(always)]
    fn count_pawn_files(&mut self, first: usize, end: usize) -> usize {
        // The files `first..end` (each bound clamped to 0..=8).
        let files = |first: usize, end: usize| {
            let (first, end) = (first.min(8), end.min(8));
            let row = (0xffu64 << first) & !(0xffu64 << end) & 0xff;
            Bitboard(row * 0x0101_0101_0101_0101)
        };
        let here = files(first, end);
        let pawns = self.ours(Role::Pawn) & here;
        if pawns.is_empty() {
            return 0;
        }
        let s = self.pawn_sets();
        let single = s.single & here;
        let double = s.double & here;
        let west = s.west & files(first.saturating_sub(1), end.saturating_sub(1));
        let east = s.east & files(first + 1, end + 1);
        let mut n = single.count() + double.count() + west.count() + east.count();
        if ((single | west | east) & Bitboard::BACKRANKS).any() {
            // A promotion is four moves.
            n += 3
                * ((single & Bitboard::BACKRANKS).count()
                    + (west & Bitboard::BACKRANKS).count()
                    + (east & Bitboard::BACKRANKS).count());
        }
        for from in pawns & self.core.pinned {
            let t = self.pawn_targets(from);
            n += t.count() << (2 * usize::from(t.intersects(Bitboard::BACKRANKS)));
        }
        n + (s.ep_from & here).count()
    }

    /// Whether the side to move has a legal move: the king's moves first
    /// (in check, where this is asked, most often there is one), then each
    /// class up to the first that holds a move. Cheaper than counting every
    /// class ([`Census::count_from`]) to tell mate from check.
    #[inline]
    pub(crate) fn has_legal_move(&mut self) -> bool {
        if self.count_king() > 0 {
            return true;
        }
        if self.core.target.is_empty() {
            // Double check: only the king may move.
            return false;
        }
        [0, 2, CASTLE, 4, 5]
            .into_iter()
            .any(|class| self.count(class) > 0)
            || self.count_from(PAWNS) > 0
    }

    /// How many legal moves class `class` holds.
    #[inline]
    pub(crate) fn count(&mut self, class: usize) -> usize {
        match class {
            0 | 2 | 4 | 5 => self.count_role(class),
            1 => self.count_king(),
            CASTLE => {
                if self.core.in_check || !self.pos.castles().has_color(self.core.turn) {
                    return 0;
                }
                usize::from(self.castle(CastlingSide::KingSide).is_some())
                    + usize::from(self.castle(CastlingSide::QueenSide).is_some())
            }
            _ => self.count_pawns(class - PAWNS),
        }
    }

    /// The `n`-th move of class `class` in SAN order, found from bitboards
    /// without listing the class, and its SAN key when the SAN does not
    /// follow from the move alone (a disambiguated piece move); `None` for
    /// castling and for pawn classes with a promotion, a pinned pawn or en
    /// passant (the caller then sorts the class's keys). The class must
    /// have been counted first ([`Census::count`] or [`Census::locate`]).
    ///
    /// Without disambiguation the SAN of a piece move is its letter, an `x`
    /// for a capture and the target square: quiet moves sort before
    /// captures (`x` is above every file letter), each by target file, then
    /// rank. A pawn's pushes (`e4`) sort before its captures (`exd5`), each
    /// by target square. Ordering squares by file, then rank, is ordering
    /// the bits of the bitboard mirrored at the a1–h8 diagonal.
    ///
    /// Moves to a square two pieces of the class reach are disambiguated
    /// (`Nbd2`, `R1e2`, `Qh4e1`). Only they get keys; they fall among the
    /// quiet plain moves by their second character (a rank digit before
    /// every file letter, a file letter after the plain moves to squares of
    /// that file, or with a full origin square by that square's rank), and
    /// all before the plain captures (`x`).
    #[inline]
    pub(crate) fn nth_move(&mut self, class: usize, n: usize) -> Option<(Move, Option<u64>)> {
        match class {
            1 => {
                let t = self.king_targets;
                let to = nth_by_file(t & !self.core.them, t & self.core.them, n)?;
                Some((self.normal(Role::King, self.core.king, to), None))
            }
            CASTLE => None,
            0..=5 => {
                let role = ROLE_OF[class];
                let mut pieces = Pieces::new();
                let (seen, shared) = self.class_targets(role, &mut pieces);
                let plain = seen.without(shared);
                let quiet = plain & !self.core.them;
                let mut n = n;
                if shared.any() {
                    // The disambiguated moves, sorted, merged into the quiet
                    // plain moves: `at` is a key's place among both.
                    let letter = u64::from(role_char(role)) << 56;
                    let mut keys = Keys::new();
                    for &(from, t) in &pieces {
                        for to in t & shared {
                            let key = disambiguated(letter, &pieces, from, to, self.core.them);
                            push(&mut keys, key | code(from, to));
                        }
                    }
                    insertion_sort(&mut keys);
                    let mut i = 0;
                    while i < keys.len() {
                        let key = keys[i];
                        let at = quiet_below(quiet, key) + i;
                        if n == at {
                            return Some((self.to_move(class, key), Some(key)));
                        }
                        if n < at {
                            break;
                        }
                        i += 1;
                    }
                    // `i` disambiguated moves come before the n-th move.
                    let q = quiet.count();
                    if n < q + keys.len() {
                        n -= i;
                    } else {
                        n -= keys.len();
                    }
                }
                let to = nth_by_file(quiet, plain & self.core.them, n)?;
                let &(from, _) = pieces.iter().find(|(_, t)| t.contains(to))?;
                Some((self.normal(role, from, to), None))
            }
            _ => {
                let [single, double, west, east] = self.plain_pawn_file(class - PAWNS)?;
                let forward = self.core.turn.fold_wb(8i32, -8);
                let pushes = single | double;
                let (to, back) = if n < pushes.count() {
                    let to = nth(pushes, n)?;
                    (
                        to,
                        if single.contains(to) {
                            forward
                        } else {
                            2 * forward
                        },
                    )
                } else if n < pushes.count() + west.count() {
                    (nth(west, n - pushes.count())?, forward - 1)
                } else {
                    (nth(east, n - pushes.count() - west.count())?, forward + 1)
                };
                let from = to.offset(-back)?;
                Some((self.normal(Role::Pawn, from, to), None))
            }
        }
    }

    /// The move that the SAN body of a piece letter or a pawn's file, an
    /// optional `x` (`capture`) and the target `to` names in class `class`
    /// (neither castling nor a promotion, no disambiguation), and its index
    /// inside the class: the inverse of [`Census::nth_move`], from the same
    /// bitboards. The classes before `class` need not have been counted.
    ///
    /// [`PlainRank::Absent`] when no legal move has this canonical SAN
    /// (the move needs disambiguation, the `x` is wrong or missing, nothing
    /// of the class reaches `to`); [`PlainRank::Keys`] for the pawn classes
    /// `nth_move` leaves to the keys (a promotion, a pinned pawn, en
    /// passant).
    #[inline]
    pub(crate) fn rank_plain(&mut self, class: usize, capture: bool, to: Square) -> PlainRank {
        match class {
            CASTLE => PlainRank::Keys,
            0..=5 => {
                let (role, mut pieces) = (ROLE_OF[class], Pieces::new());
                let (seen, shared) = if class == 1 {
                    let t = self.king_targets();
                    let _ = pieces.try_push((self.core.king, t));
                    (t, Bitboard::EMPTY)
                } else {
                    self.class_targets(role, &mut pieces)
                };
                if !seen.contains(to)
                    || shared.contains(to)
                    || capture != self.core.them.contains(to)
                {
                    return PlainRank::Absent;
                }
                let plain = seen.without(shared);
                let quiet = plain & !self.core.them;
                let mut n = if capture {
                    quiet.count() + (plain & self.core.them & by_file_below(to)).count()
                } else {
                    (quiet & by_file_below(to)).count()
                };
                if shared.any() {
                    // Disambiguated moves sort before every plain capture,
                    // and among the plain quiet moves by their key.
                    let letter = u64::from(role_char(role)) << 56;
                    let key = letter | tail(capture, to, 48);
                    for &(from, t) in &pieces {
                        for other in t & shared {
                            let d = disambiguated(letter, &pieces, from, other, self.core.them);
                            n += usize::from(capture || d < key);
                        }
                    }
                }
                match pieces.iter().find(|(_, t)| t.contains(to)) {
                    Some(&(from, _)) => PlainRank::Found(self.normal(role, from, to), n),
                    None => PlainRank::Absent,
                }
            }
            _ => {
                let file = class - PAWNS;
                let Some([single, double, west, east]) = self.plain_pawn_file(file) else {
                    return PlainRank::Keys;
                };
                let forward = self.core.turn.fold_wb(8i32, -8);
                let pushes = single | double;
                let below = Bitboard((1u64 << (to as u32)) - 1);
                let (set, before, back) = if !capture {
                    let back = if single.contains(to) {
                        forward
                    } else {
                        2 * forward
                    };
                    (pushes, 0, back)
                } else if to.file() as usize + 1 == file {
                    (west, pushes.count(), forward - 1)
                } else if to.file() as usize == file + 1 {
                    (east, pushes.count() + west.count(), forward + 1)
                } else {
                    return PlainRank::Absent;
                };
                if !set.contains(to) {
                    return PlainRank::Absent;
                }
                match to.offset(-back) {
                    Some(from) => PlainRank::Found(
                        self.normal(Role::Pawn, from, to),
                        before + (set & below).count(),
                    ),
                    None => PlainRank::Absent,
                }
            }
        }
    }

    /// The target sets of the pawns on `file` ([`PawnSets::on_file`]) when
    /// its moves follow from them alone: no promotion, no pinned pawn, no
    /// en passant (else the class is keyed).
    #[inline(always)]
    fn plain_pawn_file(&mut self, file: usize) -> Option<[Bitboard; 4]> {
        let sets = self.pawn_sets().on_file(file);
        let [single, _, west, east] = sets;
        let keyed = (single | west | east).intersects(Bitboard::BACKRANKS)
            || self.pawns_on(file).intersects(self.core.pinned)
            || self.en_passant(file).is_some();
        (!keyed).then_some(sets)
    }

    /// A normal move of ours, not a promotion.
    #[inline(always)]
    fn normal(&self, role: Role, from: Square, to: Square) -> Move {
        Move::Normal {
            role,
            from,
            capture: self.pos.board().role_at(to),
            to,
            promotion: None,
        }
    }

    /// The SAN sort keys of the legal moves of class `class`, appended to
    /// `out`, in no particular order.
    pub(crate) fn keys(&mut self, class: usize, out: &mut Keys) {
        match class {
            1 => {
                let them = self.pos.them();
                for to in self.king_targets() {
                    let mut k = KeyBuilder::new();
                    k.push(b'K');
                    if them.contains(to) {
                        k.push(b'x');
                    }
                    k.square(to);
                    push(out, k.key | code(self.core.king, to));
                }
            }
            CASTLE => {
                for (side, san) in [
                    (CastlingSide::KingSide, &b"O-O"[..]),
                    (CastlingSide::QueenSide, &b"O-O-O"[..]),
                ] {
                    if let Some(Move::Castle { king, rook }) = self.castle(side) {
                        let mut k = KeyBuilder::new();
                        for &b in san {
                            k.push(b);
                        }
                        push(out, k.key | code(king, rook) | SPECIAL);
                    }
                }
            }
            0..=5 => self.piece_keys(ROLE_OF[class], out),
            _ => self.pawn_keys(class - PAWNS, out),
        }
    }

    /// Each piece of `role` (knight, bishop, rook, queen) with its legal
    /// targets, appended to `pieces` (filled in place: a list returned by
    /// value is copied on every call); returns the union of the targets and
    /// the squares two or more reach.
    #[inline(always)]
    fn class_targets(&self, role: Role, pieces: &mut Pieces) -> (Bitboard, Bitboard) {
        let mut seen = Bitboard::EMPTY;
        let mut shared = Bitboard::EMPTY;
        for from in self.ours(role) {
            let t = self.piece_targets(role, from);
            shared |= seen & t;
            seen |= t;
            // Under the census bound a side has at most 16 pieces.
            let _ = pieces.try_push((from, t));
        }
        (seen, shared)
    }

    /// Keys of the moves of `role` (knight, bishop, rook, queen), with SAN
    /// disambiguation among the *legal* moves to the same square.
    #[inline]
    fn piece_keys(&self, role: Role, out: &mut Keys) {
        let mut pieces = Pieces::new();
        let (_, shared) = self.class_targets(role, &mut pieces);
        let them = self.core.them;
        let letter = u64::from(role_char(role)) << 56;
        for &(from, t) in &pieces {
            for to in t {
                let key = if shared.contains(to) {
                    disambiguated(letter, &pieces, from, to, them)
                } else {
                    letter | tail(them.contains(to), to, 48)
                };
                push(out, key | code(from, to));
            }
        }
    }

    /// Keys of the pawn moves from `file`: pushes, captures, promotions (one
    /// key per promotion piece) and en passant.
    #[inline]
    fn pawn_keys(&mut self, file: usize, out: &mut Keys) {
        let letter = b'a' + file as u8;
        for from in self.pawns_on(file) {
            for to in self.pawn_targets(from) {
                let mut k = KeyBuilder::new();
                if to.file() != from.file() {
                    k.push(letter);
                    k.push(b'x');
                }
                k.square(to);
                let c = code(from, to);
                if Bitboard::BACKRANKS.contains(to) {
                    for p in [Role::Bishop, Role::Knight, Role::Queen, Role::Rook] {
                        let mut kp = k;
                        kp.push(b'=');
                        kp.push(role_char(p));
                        push(out, kp.key | c | (p as u64) << 12);
                    }
                } else {
                    push(out, k.key | c);
                }
            }
        }
        if let Some(Move::EnPassant { from, to }) = self.en_passant(file) {
            let mut k = KeyBuilder::new();
            k.push(letter);
            k.push(b'x');
            k.square(to);
            push(out, k.key | code(from, to) | SPECIAL);
        }
    }

    /// The move a key of class `class` stands for.
    #[inline]
    pub(crate) fn to_move(&self, class: usize, key: u64) -> Move {
        let from = Square::new((key & 63) as u32);
        let to = Square::new(((key >> 6) & 63) as u32);
        if class == CASTLE {
            return Move::Castle {
                king: from,
                rook: to,
            };
        }
        if key & SPECIAL != 0 {
            return Move::EnPassant { from, to };
        }
        let role = if class >= PAWNS {
            Role::Pawn
        } else {
            ROLE_OF[class]
        };
        Move::Normal {
            role,
            from,
            capture: self.pos.board().role_at(to),
            to,
            promotion: Role::try_from(((key >> 12) & 7) as u8).ok(),
        }
    }
}

/// What [`Census::rank_plain`] found.
pub(crate) enum PlainRank {
    /// The move and its index inside its class.
    Found(Move, usize),
    /// No legal move has this canonical SAN.
    Absent,
    /// The class must be keyed and sorted to tell.
    Keys,
}

/// The squares before `to` in file-then-rank order (the SAN order of a
/// piece's plain target squares).
#[inline(always)]
fn by_file_below(to: Square) -> Bitboard {
    let (file, rank) = (to.file() as u32, to.rank() as u32);
    let files_before = 0x0101_0101_0101_0101 * ((1u64 << file) - 1);
    let ranks_before = (0x0101_0101_0101_0101u64 << file) & ((1u64 << (8 * rank)) - 1);
    Bitboard(files_before | ranks_before)
}

/// The enemy knights, pawns and king that attack `king`, of side `turn`.
#[inline(always)]
fn leaper_checkers(board: &shakmaty::Board, turn: Color, king: Square) -> Bitboard {
    board.by_color(!turn)
        & ((attacks::knight_attacks(king) & board.knights())
            | (attacks::pawn_attacks(turn, king) & board.pawns())
            | (attacks::king_attacks(king) & board.kings()))
}

/// The enemy sliders that would see `king`, of side `turn`, on an empty
/// board: checkers when nothing stands between, pinners when one piece of
/// ours does. The empty-board lines come from small tables that stay in
/// the L1 cache, not from the magic attack table.
#[inline(always)]
fn snipers(board: &shakmaty::Board, turn: Color, king: Square) -> Bitboard {
    ((Bitboard(slider::ROOK_LINES[king as usize]) & board.rooks_and_queens())
        | (Bitboard(slider::BISHOP_LINES[king as usize]) & board.bishops_and_queens()))
        & board.by_color(!turn)
}

/// The SAN key body of the move `from`–`to` of the piece with SAN letter
/// `letter` (in the top byte), to a square another of `pieces` (origins and
/// legal targets) also reaches: the origin's file if it tells the pieces
/// apart, else its rank, else its square (SAN, section 8.2.3.4).
#[inline]
fn disambiguated(
    letter: u64,
    pieces: &[(Square, Bitboard)],
    from: Square,
    to: Square,
    them: Bitboard,
) -> u64 {
    let capture = them.contains(to);
    let mut others = Bitboard::EMPTY;
    for &(o, ot) in pieces {
        if o != from && ot.contains(to) {
            others.add(o);
        }
    }
    if !others.intersects(Bitboard::from_file(from.file())) {
        letter | u64::from(b'a' + from.file() as u8) << 48 | tail(capture, to, 40)
    } else if !others.intersects(Bitboard::from_rank(from.rank())) {
        letter | u64::from(b'1' + from.rank() as u8) << 48 | tail(capture, to, 40)
    } else {
        letter | square_bytes(from) << 40 | tail(capture, to, 32)
    }
}

/// How many of the plain quiet moves `quiet` (targets; SAN letter, then
/// the target square) sort before the disambiguated move with key `key`.
/// The key's second byte is a rank digit (before every plain move) or an
/// origin file letter `F`: then every plain move to a file up to `F` sorts
/// before it, except that with a full origin square (`Qh4e1`, third byte a
/// rank digit `R`) the plain moves to file `F` above rank `R` sort after.
#[inline]
fn quiet_below(quiet: Bitboard, key: u64) -> usize {
    let second = (key >> 48) as u8;
    if second < b'a' {
        return 0;
    }
    let file = u32::from(second - b'a');
    let below = Bitboard(0x0101_0101_0101_0101 * ((1u64 << file) - 1));
    let third = (key >> 40) as u8;
    let same_file = Bitboard::from_file(File::new(file));
    let same = if third < b'a' {
        // Ranks up to `R`: the plain move `F R` is a prefix of the key.
        same_file & Bitboard(u64::MAX >> (8 * (7 - u32::from(third - b'1'))))
    } else {
        same_file
    };
    (quiet & (below | same)).count()
}

/// Sorts a few keys in place (insertion sort: a class holds few moves).
#[inline]
pub(crate) fn insertion_sort(keys: &mut [u64]) {
    for i in 1..keys.len() {
        let k = keys[i];
        let mut j = i;
        while j > 0 && keys[j - 1] > k {
            keys[j] = keys[j - 1];
            j -= 1;
        }
        keys[j] = k;
    }
}

/// The files holding a square of `b`, as bits 0 (a) to 7 (h).
#[inline(always)]
fn file_set(b: Bitboard) -> u32 {
    let mut x = b.0;
    x |= x >> 32;
    x |= x >> 16;
    x |= x >> 8;
    (x & 0xff) as u32
}

/// The `n`-th square of `quiet` then `captures`, each in file-then-rank
/// order.
#[inline(always)]
fn nth_by_file(quiet: Bitboard, captures: Bitboard, n: usize) -> Option<Square> {
    let q = quiet.count();
    let sq = if n < q {
        nth(quiet.flip_diagonal(), n)?
    } else {
        nth(captures.flip_diagonal(), n - q)?
    };
    Some(sq.flip_diagonal())
}

/// The `n`-th set square of `b` in square order.
#[inline(always)]
fn nth(mut b: Bitboard, n: usize) -> Option<Square> {
    for _ in 0..n {
        b.discard_first();
    }
    b.first()
}

/// A square's SAN bytes (file letter, rank digit) as a 16-bit number.
#[inline(always)]
fn square_bytes(sq: Square) -> u64 {
    u64::from(b'a' + sq.file() as u8) << 8 | u64::from(b'1' + sq.rank() as u8)
}

/// The end of a piece move's SAN key: `x` for a capture, then the target
/// square, its first byte at bit `shift` (big-endian, as `KeyBuilder`).
#[inline(always)]
fn tail(capture: bool, to: Square, shift: u32) -> u64 {
    if capture {
        u64::from(b'x') << shift | square_bytes(to) << (shift - 16)
    } else {
        square_bytes(to) << (shift - 8)
    }
}

/// The code of a move in the low bits of its key: origin, target, and (set
/// by the caller) promotion piece and the special flag.
#[inline(always)]
const fn code(from: Square, to: Square) -> u64 {
    from as u64 | (to as u64) << 6
}

/// The code of a shakmaty move, as [`Census::keys`] makes it.
#[inline]
pub(crate) fn code_of(m: Move) -> u64 {
    match m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => code(from, to) | promotion.map_or(0, |p| (p as u64) << 12),
        Move::EnPassant { from, to } => code(from, to) | SPECIAL,
        Move::Castle { king, rook } => code(king, rook) | SPECIAL,
        Move::Put { to, .. } => code(to, to),
    }
}

/// Appends a key; a census never makes more than [`MAX_ORDINALS`].
#[inline(always)]
fn push(out: &mut Keys, key: u64) {
    let _ = out.try_push(key);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ordinal::key::{INDEX_MASK, class_of};
    use shakmaty::{Chess, fen::Fen};

    fn pos(fen: &str) -> Chess {
        crate::setup::start_position(Some(fen.as_bytes())).expect("a valid FEN")
    }

    /// Counts and moves per class equal shakmaty's legal moves, grouped.
    pub(crate) fn assert_agrees(p: &Chess) {
        let Some(mut c) = Census::new(p) else { return };
        let legal = p.legal_moves();
        for class in 0..CLASSES {
            let each: usize = (class..CLASSES)
                .map(|c| Census::new(p).unwrap().count(c))
                .sum();
            assert_eq!(
                Census::new(p).unwrap().count_from(class),
                each,
                "from {class}"
            );
        }
        assert_eq!(Census::new(p).unwrap().count_from(0), legal.len(), "all");
        for class in 0..=CLASSES {
            let below = legal.iter().filter(|&&m| class_of(m) < class).count();
            assert_eq!(
                Census::new(p).unwrap().count_below(class),
                below,
                "below {class}"
            );
        }
        assert_eq!(
            Census::new(p).unwrap().has_legal_move(),
            !legal.is_empty(),
            "any"
        );
        for class in 0..CLASSES {
            let mut want: Vec<Move> = legal
                .iter()
                .copied()
                .filter(|&m| class_of(m) == class)
                .collect();
            let count = c.count(class);
            let mut keys = Keys::new();
            c.keys(class, &mut keys);
            let mut got: Vec<Move> = keys.iter().map(|&k| c.to_move(class, k)).collect();
            for (&k, &m) in keys.iter().zip(&got) {
                assert_eq!(k & INDEX_MASK, code_of(m), "code of {m:?}");
            }
            // The bitboard selection picks what sorting the keys picks.
            let mut sorted = keys.clone();
            sorted.sort_unstable();
            for (n, &k) in sorted.iter().enumerate() {
                if let Some((m, key)) = c.nth_move(class, n) {
                    assert_eq!(m, c.to_move(class, k), "move {n} of class {class}");
                    if let Some(key) = key {
                        assert_eq!(key, k, "key of move {n} of class {class}");
                    }
                }
            }
            let key = |m: &Move| format!("{m:?}");
            want.sort_by_key(key);
            got.sort_by_key(key);
            assert_eq!(
                got,
                want,
                "class {class} in {}",
                Fen::from_position(p, shakmaty::EnPassantMode::Always)
            );
            assert_eq!(count, want.len(), "count of class {class}");
        }
    }

    #[test]
    fn classes_agree_with_shakmaty_on_hand_picked_positions() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            // pinned knight, pinned pawn, check by a knight, double check
            "4k3/8/8/8/1b6/2N5/8/4K1N1 w - - 0 1",
            "4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1",
            "4k3/8/8/8/8/5n2/8/4K3 w - - 0 1",
            "4k3/8/8/8/1b6/8/8/r3K3 w - - 0 1",
            // castling both ways, through attacked squares, Chess960
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/5b2/R3K2R w KQkq - 0 1",
            "rkrbbnnq/pppppppp/8/8/8/8/PPPPPPPP/RKRBBNNQ w KQkq - 0 1",
            // en passant: plain, pinned along the rank, evading a pawn check
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
            "8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1",
            "8/8/8/3pP3/4K3/8/8/4k3 w - d6 0 1",
            // promotions with captures, and a king walking along a check ray
            "1n2k3/P1P5/8/8/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/r3K3 w - - 0 1",
            "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
            // mate, stalemate, a check only a block answers, a pawn's check
            // (en passant possible), a double check the king escapes, a
            // smothered mate
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "k7/8/8/8/8/8/PP2R3/K6r w - - 0 1",
            "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
            "4k3/8/8/8/8/5n2/8/r3K3 w - - 0 1",
            "6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1",
        ] {
            assert_agrees(&pos(fen));
        }
    }

    #[test]
    fn material_beyond_the_bound_takes_the_slow_path() {
        // Nine queens, two rooks, two bishops: reachable, and beyond the bound.
        let p = pos("6rk/6pp/8/8/8/8/QQQQQQ2/QQQRRBBK w - - 0 1");
        assert!(Census::new(&p).is_none());
        let legal = p.legal_moves();
        for ord in 0..legal.len() as u8 {
            assert_eq!(
                crate::ordinal::select_in(&p, ord).unwrap(),
                crate::ordinal::select(&p, &legal, ord).unwrap()
            );
        }
    }
}
