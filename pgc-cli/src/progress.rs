//! Progress on stderr while stderr is a terminal (nothing on a pipe or with
//! `--quiet`), and the one-line summary at the end.
//!
//! The input size is often unknown (stdin, compressed files), so the
//! progress line shows what is known: bytes read, games, games per second.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

const EVERY: Duration = Duration::from_millis(120);

/// A throttled status line on stderr.
pub struct Progress {
    enabled: bool,
    quiet: bool,
    label: &'static str,
    start: Instant,
    last: Option<Instant>,
    drawn: bool,
}

impl Progress {
    /// A progress line for `label` (the command name).
    pub fn new(label: &'static str, quiet: bool) -> Progress {
        Progress {
            enabled: !quiet && std::io::stderr().is_terminal(),
            quiet,
            label,
            start: Instant::now(),
            last: None,
            drawn: false,
        }
    }

    /// Updates the line, at most every 120 ms.
    pub fn tick(&mut self, bytes: u64, games: u64) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if self.last.is_some_and(|t| now.duration_since(t) < EVERY) {
            return;
        }
        self.last = Some(now);
        let secs = self.start.elapsed().as_secs_f64().max(1e-3);
        let line = format!(
            "\r\x1b[2Kpgc {}: {} read, {} games, {:.0} games/s",
            self.label,
            human_bytes(bytes),
            games,
            games as f64 / secs
        );
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(line.as_bytes());
        let _ = err.flush();
        self.drawn = true;
    }

    /// Clears the line.
    pub fn clear(&mut self) {
        if self.drawn {
            let _ = std::io::stderr().write_all(b"\r\x1b[2K");
            self.drawn = false;
        }
    }

    /// Time since the start.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Clears the line and prints `text` as the summary (unless quiet).
    pub fn summary(&mut self, text: &str) {
        self.clear();
        if !self.quiet {
            say(text);
        }
    }

    /// Whether messages other than errors should be printed.
    pub fn verbose(&self) -> bool {
        !self.quiet
    }
}

/// Prints `pgc: {text}` on stderr (an unwritable stderr is ignored).
pub fn say(text: &str) {
    let _ = writeln!(std::io::stderr(), "pgc: {text}");
}

/// `1.2 MiB`-style sizes.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// The summary line shared by `encode` and `decode`; `counted` adds a
/// count after the plies when there is one (`3 rejected`, `1 kept as
/// text`).
pub fn summary_line(
    games: u64,
    plies: u64,
    counted: Option<(u64, &str)>,
    bytes_in: u64,
    bytes_out: u64,
    elapsed: Duration,
) -> String {
    let ratio = if bytes_in == 0 {
        String::from("-")
    } else {
        format!("{:.1}%", bytes_out as f64 * 100.0 / bytes_in as f64)
    };
    let counted = counted.map_or(String::new(), |(n, what)| format!(", {n} {what}"));
    format!(
        "{games} games, {plies} plies{counted}, {} in, {} out ({ratio}), {:.2} s",
        human_bytes(bytes_in),
        human_bytes(bytes_out),
        elapsed.as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(human_bytes(10), "10 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        let s = summary_line(
            2,
            10,
            Some((1, "rejected")),
            1000,
            250,
            Duration::from_millis(1500),
        );
        assert_eq!(
            s,
            "2 games, 10 plies, 1 rejected, 1000 B in, 250 B out (25.0%), 1.50 s"
        );
    }
}
