//! The commands, one leaf module each: a command module imports the shared
//! modules (`args`, `io`, `batch`, `progress`, …), never another command.

mod decode;
mod dump;
mod encode;
mod export;
mod import;
mod index;
mod info;
mod moves;
mod split;
mod verify;

use crate::args::Command;
use crate::error::{Result, Status};

/// Runs a command.
///
/// # Errors
/// The command's: usage, I/O, invalid data.
pub fn run(command: Command) -> Result<Status> {
    match command {
        Command::Encode(a) => encode::run(&a),
        Command::Decode(a) => decode::run(&a),
        Command::Verify(a) => verify::run(&a),
        Command::Dump(a) => dump::run(&a),
        Command::Info(a) => info::run(&a),
        Command::Moves(a) => moves::run(&a),
        Command::Index(a) => index::run(&a),
        Command::Split(a) => split::run(&a),
        Command::Export(a) => export::run(&a),
        Command::Import(a) => import::run(&a),
    }
}
