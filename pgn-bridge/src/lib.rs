//! PGN bridge.
pub mod lexer;
pub mod pgn_error;
pub mod reader;
pub mod visitor;
