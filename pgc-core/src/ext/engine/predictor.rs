//! How a numbers stream predicts its values, and the writer's choice of
//! predictor.

use super::stream::Stream;
use crate::ext::cursor::zigzag;
use crate::item::put_varint;
use std::ops::ControlFlow;

/// Bytes of a LEB128 value.
pub(super) fn leb_len(v: u64) -> usize {
    // By the count of leading zeros: one load in the writer's cost loops.
    const BY_ZEROS: [u8; 65] = {
        let mut t = [0u8; 65];
        let mut z = 0;
        while z <= 64 {
            let bits = 64 - z;
            t[z] = if bits == 0 { 1 } else { bits.div_ceil(7) as u8 };
            z += 1;
        }
        t
    };
    usize::from(BY_ZEROS[v.leading_zeros() as usize])
}

/// How a numbers stream predicts each value; the stream stores the
/// residuals `v[i] − prediction` (`spec/extensions-engine.md` section 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Predictor {
    /// 0: nothing (the value itself).
    Value,
    /// 1: the value before.
    Previous,
    /// 2: the value two before.
    TwoBack,
    /// 3: `a[i] × b[i] / 10^scale` of two earlier streams (nodes from
    /// speed and time); with bit 7 of `scale` set, `a[i] × b[i] ×
    /// 10^(scale − 128)` (nodes from kN/s and seconds).
    Product { a: u8, b: u8, scale: u8 },
    /// 4: `v[i−2] − a[i] + bias` (time left from the time left two notes
    /// before, the move time of stream `a`, and the increment).
    TwoBackLess { a: u8, bias: i64 },
    /// 5: the nodes of a speed `a[i]` over a time `b[i] − δ`: the speed an
    /// engine reports is `⌊nodes × 10^scale / t⌋` of its own time `t`, a
    /// few milliseconds below the move time (`spec/extensions-engine.md`
    /// section 5). Each residual packs `δ` and the nodes' offset within
    /// the range that speed and time leave.
    SpeedTime { a: u8, b: u8, scale: u8 },
}

/// Bit 7 of a product's scale: multiply by the power of ten.
pub(super) const MULTIPLY: u8 = 0x80;

/// Bit 7 of a predictor's first byte: the stream's residuals follow its
/// count as byte planes (a width byte of 2 to 8, then the residuals'
/// lowest bytes, then their next bytes, and so on) instead of one LEB128
/// each (`spec/extensions-engine.md` section 5).
pub(super) const PLANES: u8 = 0x80;

/// The widest byte planes a reader accepts: a zig-zag residual of a value
/// within ±10^18 takes at most 8 bytes.
pub(super) const MAX_PLANES: u8 = 8;

/// The residuals of [`Predictor::SpeedTime`] pack `δ + DELTA_BIAS` in
/// their low six bits.
const DELTA_BITS: u32 = 6;
/// `δ` runs from `−DELTA_BIAS` to `DELTA_BIAS − 1`.
const DELTA_BIAS: i64 = 1 << (DELTA_BITS - 1);

/// The fewest nodes whose speed over `t` at `scale` is `speed` or more:
/// `⌈speed × t / 10^scale⌉`, and 0 where the speed or the time is not
/// positive (`None` where `scale` is above 18 or the result beyond 64
/// bits).
fn nodes_from(speed: i64, t: i128, scale: u8) -> Option<i128> {
    if speed <= 0 || t <= 0 {
        return Some(0);
    }
    // Below 2^127: both factors are below 2^63 (the time less δ at most
    // 32 more).
    let product = i128::from(speed) * t;
    let unit = 10i128.checked_pow(u32::from(scale))?;
    let lo = product / unit + i128::from(product % unit != 0);
    i64::try_from(lo).ok().map(i128::from)
}

/// The residual of value `v` under [`Predictor::SpeedTime`] with speed
/// `speed`, time `time`: the `δ` (within its range) that leaves the
/// smallest offset, the first of the candidates on a tie.
fn speed_time_residual(v: i64, speed: i64, time: i64, scale: u8) -> Option<i64> {
    let time = i128::from(time);
    // The engine's time from the speed, to the nearest unit; its δ and
    // the two beside it (an exact speed is met by one of them).
    let guess = if speed > 0 && v > 0 {
        let unit = 10i128.checked_pow(u32::from(scale))?;
        let t = (i128::from(v) * unit * 2 + i128::from(speed)) / (2 * i128::from(speed));
        (time - t).clamp(-DELTA_BIAS as i128, DELTA_BIAS as i128 - 1) as i64
    } else {
        0
    };
    let mut best: Option<(i128, i64)> = None;
    for delta in [guess, guess - 1, guess + 1] {
        if !(-DELTA_BIAS..DELTA_BIAS).contains(&delta) {
            continue;
        }
        let r = i128::from(v) - nodes_from(speed, time - i128::from(delta), scale)?;
        if best.is_none_or(|(b, _)| r.unsigned_abs() < b.unsigned_abs()) {
            best = Some((r, delta));
        }
    }
    let (r, delta) = best?;
    let packed = r.checked_mul(1 << DELTA_BITS)? + i128::from(delta + DELTA_BIAS);
    i64::try_from(packed).ok()
}

/// The value of residual `res` under [`Predictor::SpeedTime`].
fn speed_time_value(res: i64, speed: i64, time: i64, scale: u8) -> Option<i128> {
    let delta = res.rem_euclid(1 << DELTA_BITS) - DELTA_BIAS;
    let r = res.div_euclid(1 << DELTA_BITS);
    Some(nodes_from(speed, i128::from(time) - i128::from(delta), scale)? + i128::from(r))
}

impl Predictor {
    /// The residual the stream stores for value `own[i]`, given the values
    /// before it and the earlier streams' values (`None` where it is
    /// beyond 64 bits or a stream is short, which a writer never chooses).
    #[inline(always)]
    pub(super) fn residual(
        self,
        own: &[i64],
        i: usize,
        stream: impl Fn(u8) -> Option<i64>,
    ) -> Option<i64> {
        if let Predictor::SpeedTime { a, b, scale } = self {
            return speed_time_residual(own[i], stream(a)?, stream(b)?, scale);
        }
        let pred = self.predict(own, i, stream)?;
        i64::try_from(i128::from(own[i]) - pred).ok()
    }

    /// Value `i` from its residual `res`, given the values before it
    /// (`own[..i]`) and the earlier streams' values (`None` where a stream
    /// is short or the scale is above 18).
    #[inline(always)]
    pub(super) fn value(
        self,
        res: i64,
        own: &[i64],
        i: usize,
        stream: impl Fn(u8) -> Option<i64>,
    ) -> Option<i128> {
        if let Predictor::SpeedTime { a, b, scale } = self {
            return speed_time_value(res, stream(a)?, stream(b)?, scale);
        }
        Some(self.predict(own, i, stream)? + i128::from(res))
    }

    /// The prediction of value `i` under predictors 0 to 4, given the
    /// values before it and the earlier streams' values.
    #[inline(always)]
    fn predict(self, own: &[i64], i: usize, stream: impl Fn(u8) -> Option<i64>) -> Option<i128> {
        let back = |k: usize| i.checked_sub(k).map(|j| i128::from(own[j]));
        Some(match self {
            Predictor::Value => 0,
            Predictor::Previous => back(1).unwrap_or(0),
            Predictor::TwoBack => back(2).unwrap_or(0),
            Predictor::Product { a, b, scale } if scale & MULTIPLY != 0 => {
                let (x, y) = (stream(a)?, stream(b)?);
                let unit = 10i128.checked_pow(u32::from(scale & !MULTIPLY))?;
                (i128::from(x) * i128::from(y)).checked_mul(unit)?
            }
            Predictor::Product { a, b, scale } => {
                let (x, y) = (stream(a)?, stream(b)?);
                // Truncated toward zero either way; 64 bits when it fits.
                match (x.checked_mul(y), 10i64.checked_pow(u32::from(scale))) {
                    (Some(p), Some(d)) => i128::from(p / d),
                    _ => i128::from(x) * i128::from(y) / 10i128.checked_pow(u32::from(scale))?,
                }
            }
            Predictor::TwoBackLess { a, bias } => match back(2) {
                Some(p) => p - i128::from(stream(a)?) + i128::from(bias),
                None => 0,
            },
            Predictor::SpeedTime { .. } => return None,
        })
    }

    /// Bytes the predictor itself takes beyond the one of the plain ones.
    pub(super) fn extra_bytes(self) -> usize {
        match self {
            Predictor::Value | Predictor::Previous | Predictor::TwoBack => 0,
            Predictor::Product { .. } | Predictor::SpeedTime { .. } => 4,
            Predictor::TwoBackLess { bias, .. } => 2 + leb_len(zigzag(bias)),
        }
    }

    /// Writes the predictor; `planes`: with [`PLANES`] set in its first
    /// byte.
    fn write(self, out: &mut Vec<u8>, planes: bool) {
        let flag = if planes { PLANES } else { 0 };
        match self {
            Predictor::Value => out.push(flag),
            Predictor::Previous => out.push(1 | flag),
            Predictor::TwoBack => out.push(2 | flag),
            Predictor::Product { a, b, scale } => out.extend_from_slice(&[3 | flag, a, b, scale]),
            Predictor::SpeedTime { a, b, scale } => out.extend_from_slice(&[5 | flag, a, b, scale]),
            Predictor::TwoBackLess { a, bias } => {
                out.extend_from_slice(&[4 | flag, a]);
                put_varint(out, zigzag(bias));
            }
        }
    }
}

/// Calls `f` with the residual of each value of `v` under `p` (`None`
/// where one is beyond 64 bits or a stream it reads is short), in order,
/// until `f` breaks. The predictor's kind is fixed in each loop and the
/// streams it reads are looked up once: the writer tries dozens of
/// predictors on a game's streams, a fifth of encoding engine games when
/// the kind was matched and the stream found again for every value.
#[inline]
fn for_residuals(
    v: &[i64],
    p: Predictor,
    streams: &[Stream],
    mut f: impl FnMut(Option<i64>) -> ControlFlow<()>,
) {
    let numbers = |s: u8| match streams.get(usize::from(s)) {
        Some(Stream::Numbers(x)) => &x[..],
        _ => &[][..],
    };
    // `q` is `p` rebuilt with its kind known to the compiler, so that the
    // match in `predict` folds away inside each inlined loop.
    #[inline(always)]
    fn each(
        v: &[i64],
        q: Predictor,
        (a, xa): (u8, &[i64]),
        xb: &[i64],
        f: &mut impl FnMut(Option<i64>) -> ControlFlow<()>,
    ) {
        for i in 0..v.len() {
            let stream = |s: u8| if s == a { xa.get(i) } else { xb.get(i) }.copied();
            if f(q.residual(v, i, stream)).is_break() {
                return;
            }
        }
    }
    let f = &mut f;
    match p {
        Predictor::Value => each(v, Predictor::Value, (0, &[]), &[], f),
        Predictor::Previous => each(v, Predictor::Previous, (0, &[]), &[], f),
        Predictor::TwoBack => each(v, Predictor::TwoBack, (0, &[]), &[], f),
        Predictor::Product { a, b, scale } => {
            let q = Predictor::Product { a, b, scale };
            each(v, q, (a, numbers(a)), numbers(b), f)
        }
        Predictor::TwoBackLess { a, bias } => {
            let q = Predictor::TwoBackLess { a, bias };
            each(v, q, (a, numbers(a)), &[], f)
        }
        Predictor::SpeedTime { a, b, scale } => {
            let q = Predictor::SpeedTime { a, b, scale };
            each(v, q, (a, numbers(a)), numbers(b), f)
        }
    }
}

/// Whether `p` predicts most of the first eight values of `v` within a
/// quarter of their size (a value of zero counts as not predicted): a
/// product of two streams that
/// does not is not counted whole (a predictor that fits no better than
/// this takes more bytes than the plain ones on engine data).
fn fits_roughly(v: &[i64], p: Predictor, streams: &[Stream]) -> bool {
    let (mut seen, mut close) = (0u32, 0u32);
    for_residuals(v, p, streams, |r| {
        // Values and residuals in step: `for_residuals` goes in order.
        let i = seen as usize;
        seen += 1;
        if let (Some(r), Some(&x)) = (r, v.get(i))
            && x != 0
            && r.unsigned_abs() <= x.unsigned_abs() / 4
        {
            close += 1;
        }
        if seen >= 8 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    2 * close > seen
}

/// Whether a [`Predictor::SpeedTime`] `p` meets at least two of the first
/// eight values of `v` within a thousand nodes (an engine whose speed is
/// its nodes over its own time in whole milliseconds meets each within a
/// few): one that does not is not counted whole.
fn speed_fits(v: &[i64], p: Predictor, streams: &[Stream]) -> bool {
    let (mut seen, mut close) = (0u32, 0u32);
    for_residuals(v, p, streams, |r| {
        seen += 1;
        if r.is_some_and(|r| (r >> DELTA_BITS).unsigned_abs() < 1000) {
            close += 1;
        }
        if seen >= 8 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    close >= 2
}

/// Whether at least half of the first eight differences `v[i] − v[i−2] +
/// a[i]` lie within 63 of their median (one byte under zig-zag): a
/// time-left predictor that does not leaves as many bytes as the plain
/// ones, and is not counted whole.
fn bias_fits(diffs: &[i64]) -> bool {
    let mut head = [0i64; 8];
    let n = diffs.len().min(8);
    head[..n].copy_from_slice(&diffs[..n]);
    let head = &mut head[..n];
    head.sort_unstable();
    let median = head[n / 2];
    2 * head.iter().filter(|&&d| d.abs_diff(median) <= 63).count() >= n
}

/// Bytes of the residuals of `v` under `p` (`usize::MAX` if not usable,
/// or once the count reaches `limit`).
pub(super) fn cost(v: &[i64], p: Predictor, streams: &[Stream], limit: usize) -> usize {
    let mut n = 0usize;
    for_residuals(v, p, streams, |r| {
        match r {
            Some(r) => n += leb_len(zigzag(r)),
            None => n = usize::MAX,
        }
        if n >= limit {
            n = usize::MAX;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    n
}

/// A numbers stream (`v`, stream `me` of `streams`): the predictor that
/// takes the fewest bytes, the count, the zig-zag residuals; returns the
/// predictor.
///
/// The candidates, in order (the first of the fewest bytes wins): the
/// plain predictors; then, where those leave more than one byte a value,
/// for each earlier numbers stream `a` with as many values, the products
/// of `a` and each later such stream `b` at three scales, each followed by
/// the speed-over-time predictors of the two (only where the plain
/// predictors leave more than three bytes a value: nodes), and `a`'s
/// time-left predictor (where they leave two bytes a value or less, only
/// where its bias fits, [`bias_fits`]). `hint` is the predictor this stream took in
/// the game before: its cost bounds the search, so that most candidates
/// stop counting early. It changes how long the search takes, never what
/// it finds; `search` holds the buffers.
pub(super) fn write_numbers(
    me: usize,
    v: &[i64],
    streams: &[Stream],
    hint: Option<Predictor>,
    search: &mut Search,
    out: &mut Vec<u8>,
) -> Predictor {
    let bound = hint.map_or(usize::MAX, |h| {
        let extra = h.extra_bytes();
        cost(v, h, streams, usize::MAX).saturating_add(extra)
    });
    let mut best = best_predictor(v, me, streams, bound, search);
    if best.0 > bound {
        // The hint is not a candidate here: a search without its bound.
        best = best_predictor(v, me, streams, usize::MAX, search);
    }
    let zs = &mut search.residuals;
    zs.clear();
    for_residuals(v, best.1, streams, |r| {
        zs.push(zigzag(r.unwrap_or(0)));
        ControlFlow::Continue(())
    });
    // Wide residuals go in byte planes: zstd codes all the literals of a
    // block with one Huffman table, on which the LEB128 bytes of wide,
    // evenly spread residuals cost more than their bits. Planes of two
    // bytes or more, where they take at most 1.5 times the LEB128 bytes
    // (a stream of mostly small residuals stays LEB128).
    let width = zs.iter().map(|&z| plane_width(z)).max().unwrap_or(0);
    let leb: usize = zs.iter().map(|&z| leb_len(z)).sum();
    let planes = width >= 2 && 2 * zs.len() * width <= 3 * leb;
    best.1.write(out, planes);
    put_varint(out, v.len() as u64);
    if planes {
        out.push(width as u8);
        for plane in 0..width {
            out.extend(zs.iter().map(|&z| (z >> (8 * plane)) as u8));
        }
    } else {
        for &z in zs.iter() {
            put_varint(out, z);
        }
    }
    best.1
}

/// Bytes a zig-zag residual takes in a byte plane layout (0 for 0).
fn plane_width(z: u64) -> usize {
    (u64::BITS - z.leading_zeros()).div_ceil(8) as usize
}

/// Buffers of the predictor search, kept from stream to stream.
#[derive(Debug, Clone, Default)]
pub(super) struct Search {
    /// The zig-zag residuals of the stream being written.
    residuals: Vec<u64>,
    /// Earlier numbers streams with as many values as the one searched.
    peers: Vec<u8>,
    /// The mean magnitude of each peer's values.
    means: Vec<f64>,
    /// Differences whose median is a time-left predictor's bias.
    diffs: Vec<i64>,
}

/// The first candidate of [`write_numbers`] of the fewest bytes, among
/// those of at most `bound` bytes (`(usize::MAX, Value)` if none is).
fn best_predictor(
    v: &[i64],
    me: usize,
    streams: &[Stream],
    bound: usize,
    search: &mut Search,
) -> (usize, Predictor) {
    let mut best = (usize::MAX, Predictor::Value);
    // A candidate of `extra` bytes beyond its residuals: counted only as
    // far as it could still win (fewer bytes than the best so far, and no
    // more than the bound).
    let try_one = |p: Predictor, best: &mut (usize, Predictor)| {
        let extra = p.extra_bytes();
        let limit = best.0.min(bound.saturating_add(1));
        let c = cost(v, p, streams, limit.saturating_sub(extra)).saturating_add(extra);
        if c < best.0 && c < limit {
            *best = (c, p);
        }
    };
    for p in [Predictor::Value, Predictor::Previous, Predictor::TwoBack] {
        try_one(p, &mut best);
    }
    // What the plain predictors leave decides which others are tried; an
    // unbounded count for it when the bound cut them all short.
    let plain = if best.0 == usize::MAX {
        [Predictor::Value, Predictor::Previous, Predictor::TwoBack]
            .into_iter()
            .map(|p| cost(v, p, streams, usize::MAX))
            .min()
            .unwrap_or(usize::MAX)
    } else {
        best.0
    };
    if plain <= v.len() {
        return best;
    }
    let numbers = |s: u8| match &streams[usize::from(s)] {
        Stream::Numbers(x) => &x[..],
        Stream::Moves(_) => &[][..],
    };
    let mean = |x: &[i64]| x.iter().map(|&v| (v as f64).abs()).sum::<f64>() / x.len() as f64;
    search.peers.clear();
    search.peers.extend(
        (0..me)
            .filter(|&s| matches!(&streams[s], Stream::Numbers(x) if x.len() == v.len()))
            .map(|s| s as u8),
    );
    search.means.clear();
    search
        .means
        .extend(search.peers.iter().map(|&s| mean(numbers(s))));
    let own_mean = mean(v).max(1.0);
    // A product only for a stream of more than three bytes a value
    // (nodes); it needs two streams of large values.
    let wide = plain > 3 * v.len();
    // Two bytes a value or less: a time-left predictor only where its bias
    // fits.
    let narrow = plain <= 2 * v.len();
    for (k, &a) in search.peers.iter().enumerate() {
        for (j, &b) in search.peers.iter().enumerate().skip(k).filter(|_| wide) {
            // The scale that brings a × b to v's magnitude, and its
            // neighbours.
            let ratio = search.means[k] * search.means[j] / own_mean;
            let guess = if ratio > 0.0 {
                ratio.log10().round().clamp(-18.0, 18.0) as i64
            } else {
                0
            };
            for scale in (guess - 1).max(-18)..=(guess + 1).min(18) {
                // A power of ten to divide by, or (below zero) to multiply
                // by (TCEC's older nodes from kN/s and seconds).
                let byte = if scale < 0 {
                    MULTIPLY | (-scale) as u8
                } else {
                    scale as u8
                };
                let p = Predictor::Product { a, b, scale: byte };
                if fits_roughly(v, p, streams) {
                    try_one(p, &mut best);
                    if scale < 0 {
                        continue;
                    }
                    // Nodes from a speed over an engine's own time, each
                    // of the two streams the speed.
                    for (a, b) in [(a, b), (b, a)] {
                        let p = Predictor::SpeedTime {
                            a,
                            b,
                            scale: scale as u8,
                        };
                        if speed_fits(v, p, streams) {
                            try_one(p, &mut best);
                        }
                    }
                }
            }
        }
        // The median of v[i] - v[i-2] + a[i] as the bias.
        let x = numbers(a);
        search.diffs.clear();
        search
            .diffs
            .extend((2..v.len()).map(|i| v[i].wrapping_sub(v[i - 2]).wrapping_add(x[i])));
        if search.diffs.is_empty() || (narrow && !bias_fits(&search.diffs)) {
            continue;
        }
        // The median: the value a sort would put in the middle.
        let middle = search.diffs.len() / 2;
        let (_, &mut bias, _) = search.diffs.select_nth_unstable(middle);
        try_one(Predictor::TwoBackLess { a, bias }, &mut best);
    }
    best
}
