//! `pgc`: converts chess PGN to and from PGC (section 20 of the 1994 PGN
//! standard), and checks and inspects PGC files.
//!
//! `main` is thin: parse the flags, run the command, map the outcome to an
//! exit code (0 success, 1 rejected games or problems in the data, 2 usage or
//! I/O error; a broken pipe on stdout exits 0 without a message). Every
//! error is one line on stderr prefixed with `pgc:`.

#![forbid(unsafe_code)]

mod args;
mod batch;
mod cmd;
mod error;
mod io;
mod pgn_batch;
mod progress;
mod select;
mod syncer;
mod table;

use args::Cli;
use clap::Parser;
use error::{Error, Status};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with exit 0; usage errors to
            // stderr with exit 2. A closed stdout is not worth a message.
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    // Ctrl-C or SIGTERM: remove a named temporary output (an unnamed one
    // goes with the process), say so, exit 2. The target was never touched
    // (it is only replaced at the very end).
    let _ = ctrlc::set_handler(|| {
        io::remove_temps();
        progress::say("interrupted; no output was written");
        std::process::exit(2);
    });
    match cmd::run(cli.command) {
        Ok(Status::Ok) => ExitCode::SUCCESS,
        Ok(Status::Problems) => ExitCode::from(1),
        Err(Error::BrokenPipe) => ExitCode::SUCCESS,
        Err(e) => {
            progress::say(&e.to_string());
            ExitCode::from(e.exit_code())
        }
    }
}
