//! Games → record batches: every column's values, checked against values
//! written out by hand from the PGN; the `pgc` column gives the input back;
//! the batches are the same for every number of threads.

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Int16Type, Int32Type, Time64MicrosecondType, UInt8Type};
use arrow_array::{Array, RecordBatch};
use pgc_arrow::{
    Column, ExportOptions, FileFormat, TableReader, TableWriter, WriteOptions, append_pgc,
    convert_par,
};
use pgn_bridge::{EncodeOptions, pgn_to_pgc};

const PGN: &str = r#"[Event "Rated Blitz game"]
[Site "https://lichess.org/abc"]
[Date "????.??.??"]
[Round "?"]
[White "Alice"]
[Black "Bob"]
[Result "1-0"]
[WhiteElo "2401"]
[BlackElo "?"]
[WhiteRatingDiff "+7"]
[BlackRatingDiff "-7"]
[UTCDate "2017.05.29"]
[UTCTime "13:04:05"]
[ECO "C20"]
[TimeControl "180+2"]
[Annotator "Carol"]

1. e4 { [%eval 0.17] [%clk 0:03:00] } 1... e5 { [%clk 0:02:59.5] } 2. Qh5 { [%eval #-3] } 2... Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Event "Second"]
[Site "?"]
[Date "2020.01.01"]
[Round "1"]
[White "Bob"]
[Black "Alice"]
[Result "*"]
[WhiteElo "strong"]
[TimeControl "-"]

1. d4 d5 (1... Nf6 2. c4) 2. -- Nf6 *

"#;

fn pgc_of(pgn: &str) -> Vec<u8> {
    let mut pgc = Vec::new();
    let stats = pgn_to_pgc(pgn.as_bytes(), &mut pgc, None, &EncodeOptions::default()).unwrap();
    assert_eq!(stats.rejected, 0, "{stats:?}");
    pgc
}

fn column(b: &RecordBatch, c: Column) -> &dyn Array {
    b.column_by_name(c.name())
        .unwrap_or_else(|| panic!("no column {}", c.name()))
        .as_ref()
}

fn strings(b: &RecordBatch, c: Column) -> Vec<Option<String>> {
    let a = column(b, c).as_string::<i32>();
    (0..a.len())
        .map(|i| a.is_valid(i).then(|| a.value(i).to_string()))
        .collect()
}

fn list_i32(b: &RecordBatch, c: Column, row: usize) -> Vec<Option<i32>> {
    let l = column(b, c).as_list::<i32>().value(row);
    l.as_primitive::<Int32Type>().iter().collect()
}

fn list_str(b: &RecordBatch, c: Column, row: usize) -> Vec<String> {
    let l = column(b, c).as_list::<i32>().value(row);
    l.as_string::<i32>()
        .iter()
        .map(|s| s.unwrap().to_string())
        .collect()
}

#[test]
fn every_column_holds_what_the_pgn_says() {
    let pgc = pgc_of(PGN);
    let batches = convert_par(&pgc, 1, &ExportOptions::new(true, true)).unwrap();
    assert_eq!(batches.len(), 1);
    let b = &batches[0];
    assert_eq!(b.num_rows(), 2);
    assert_eq!(b.schema(), ExportOptions::new(true, true).schema());

    assert_eq!(
        strings(b, Column::Event),
        [Some("Rated Blitz game".into()), Some("Second".into())]
    );
    assert_eq!(
        strings(b, Column::Date),
        [Some("????.??.??".into()), Some("2020.01.01".into())]
    );
    assert_eq!(strings(b, Column::Eco), [Some("C20".into()), None]);
    assert_eq!(strings(b, Column::Opening), [None, None]);
    let int16 = |c: Column| -> Vec<Option<i16>> {
        column(b, c).as_primitive::<Int16Type>().iter().collect()
    };
    // "?" is null; "strong" is null and kept among the other tags.
    assert_eq!(int16(Column::WhiteElo), [Some(2401), None]);
    assert_eq!(int16(Column::BlackElo), [None, None]);
    assert_eq!(int16(Column::WhiteRatingDiff), [Some(7), None]);
    assert_eq!(int16(Column::BlackRatingDiff), [Some(-7), None]);
    let dates: Vec<Option<i32>> = column(b, Column::UtcDate)
        .as_primitive::<Date32Type>()
        .iter()
        .collect();
    // 2017-05-29 is day 17315 after 1970-01-01.
    assert_eq!(dates, [Some(17315), None]);
    let times: Vec<Option<i64>> = column(b, Column::UtcTime)
        .as_primitive::<Time64MicrosecondType>()
        .iter()
        .collect();
    assert_eq!(times, [Some((13 * 3600 + 4 * 60 + 5) * 1_000_000), None]);
    let i32s = |c: Column| -> Vec<Option<i32>> {
        column(b, c).as_primitive::<Int32Type>().iter().collect()
    };
    assert_eq!(i32s(Column::BaseSeconds), [Some(180), None]);
    assert_eq!(i32s(Column::IncrementSeconds), [Some(2), None]);
    assert_eq!(i32s(Column::Plies), [Some(7), Some(4)]);

    let other = column(b, Column::OtherTags).as_map();
    let entries = |row: usize| -> Vec<(String, String)> {
        let e = other.value(row);
        let k = e.column(0).as_string::<i32>();
        let v = e.column(1).as_string::<i32>();
        (0..e.len())
            .map(|i| (k.value(i).to_string(), v.value(i).to_string()))
            .collect()
    };
    let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
    assert_eq!(entries(0), [pair("Round", "?"), pair("Annotator", "Carol")]);
    assert_eq!(entries(1), [pair("Round", "1"), pair("WhiteElo", "strong")]);

    // Ordinals of 20.2: e4 is 13 and d4 11 of the 20 moves of the start.
    let ords = column(b, Column::Ordinals).as_list::<i32>();
    let first: Vec<Option<u8>> = ords.value(0).as_primitive::<UInt8Type>().iter().collect();
    assert_eq!(first.len(), 7);
    assert_eq!(first[0], Some(13));
    let second: Vec<Option<u8>> = ords.value(1).as_primitive::<UInt8Type>().iter().collect();
    // The null move has no ordinal; the variation is not in the main line.
    assert_eq!(second.len(), 4);
    assert_eq!((second[0], second[2]), (Some(11), None));

    assert_eq!(
        list_str(b, Column::Uci, 0),
        ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"]
    );
    assert_eq!(
        list_str(b, Column::Uci, 1),
        ["d2d4", "d7d5", "0000", "g8f6"]
    );
    assert_eq!(
        list_str(b, Column::San, 0),
        ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]
    );
    assert_eq!(list_str(b, Column::San, 1), ["d4", "d5", "--", "Nf6"]);

    // 0:03:00 is 18000 centiseconds, 0:02:59.5 is 17950.
    let none = [None; 5];
    let mut clocks = vec![Some(18000), Some(17950)];
    clocks.extend(none);
    assert_eq!(list_i32(b, Column::Clocks, 0), clocks);
    let mut evals = vec![Some(17), None, None];
    evals.extend([None; 4]);
    assert_eq!(list_i32(b, Column::Evals, 0), evals);
    let mut mates = vec![None, None, Some(-3)];
    mates.extend([None; 4]);
    assert_eq!(list_i32(b, Column::Mates, 0), mates);
    // The second game has no clock and no eval: null lists, not lists of
    // nulls.
    for c in [Column::Clocks, Column::Evals, Column::Mates] {
        assert!(column(b, c).is_null(1), "{c:?}");
        assert!(column(b, c).is_valid(0), "{c:?}");
    }

    let mut back = Vec::new();
    append_pgc(b, &mut back).unwrap();
    assert_eq!(back, pgc);
}

/// A `pgc` cell that is not whole PGC records (text, an empty cell, a
/// record cut short) is refused with its row, and nothing is appended.
#[test]
fn a_pgc_cell_that_does_not_frame_is_refused() {
    use std::sync::Arc;
    let pgc = pgc_of(PGN);
    let b = &convert_par(&pgc, 1, &ExportOptions::default()).unwrap()[0];
    let i = b.schema().index_of("pgc").unwrap();
    let good = b.column(i).as_binary::<i32>().value(0).to_vec();
    for (bad, what) in [
        (&b"garbage"[..], "unknown record marker"),
        (&b""[..], "empty"),
        // A game begins, then a tag pair whose name claims 5 bytes.
        (&[0x05, 0x02, 0x05, b'E'][..], ""),
        // Whole records, but the game they begin ends in the next cell.
        (&good[..good.len() - 1], "no game-end record"),
        (&good[..1], "no game-end record"),
    ] {
        let cells = arrow_array::BinaryArray::from(vec![&good[..], bad]);
        let mut columns = b.columns().to_vec();
        columns[i] = Arc::new(cells.slice(0, 2));
        let rows =
            RecordBatch::try_new(b.schema(), columns.iter().map(|c| c.slice(0, 2)).collect());
        let rows = rows.unwrap();
        let mut back = Vec::new();
        let e = append_pgc(&rows, &mut back).unwrap_err();
        let msg = e.to_string();
        assert!(
            matches!(e, pgc_arrow::Error::BadPgc { row: 1, .. }) && msg.contains(what),
            "{msg}"
        );
        assert!(back.is_empty());
    }
}

#[test]
fn chosen_columns_only() {
    let pgc = pgc_of(PGN);
    let opts = ExportOptions::with_columns(&["pgc", "White", "plies"], false, true).unwrap();
    let b = &convert_par(&pgc, 1, &opts).unwrap()[0];
    let names: Vec<String> = b
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    // Schema order, not the order asked.
    assert_eq!(names, ["White", "plies", "san", "pgc"]);
    let e = ExportOptions::with_columns(&["Whiteelo"], false, false).unwrap_err();
    assert!(e.to_string().contains("\"Whiteelo\""), "{e}");
}

/// A table without tag columns (its games' tags are not read) has the
/// move columns of the whole table, batch after batch.
#[test]
fn a_table_without_tags_has_the_moves_of_the_whole_table() {
    let pgc = [pgc_of(PGN), big_pgc()].concat();
    let moves = ExportOptions::with_columns(&["plies", "clocks", "evals"], true, false).unwrap();
    let all = ExportOptions::new(true, false);
    let (a, b) = (
        convert_par(&pgc, 2, &moves).unwrap(),
        convert_par(&pgc, 2, &all).unwrap(),
    );
    assert!(a.len() > 1, "one batch only");
    assert_eq!(a.len(), b.len());
    for (a, b) in a.iter().zip(&b) {
        assert_eq!(a.num_columns(), 4, "{:?}", a.schema());
        for c in [Column::Plies, Column::Clocks, Column::Evals, Column::Uci] {
            assert_eq!(
                column(a, c).to_data(),
                column(b, c).to_data(),
                "{}",
                c.name()
            );
        }
    }
    // 0:03:00 and 0:02:59.5 in centiseconds, then five plies without.
    let mut clocks = vec![Some(18000), Some(17950)];
    clocks.extend([None; 5]);
    assert_eq!(list_i32(&a[0], Column::Clocks, 0), clocks);
}

/// Games in [`big_pgc`].
const GAMES: usize = 40_000;

/// Many games with noop records between them (and after the last), in
/// several batches.
fn big_pgc() -> Vec<u8> {
    let mut pgc = Vec::new();
    for i in 0..GAMES {
        pgc.extend(pgc_of(&format!(
            "[White \"P{i}\"]\n[WhiteElo \"{}\"]\n\n1. e4 {{ [%clk 0:01:{:02}] }} e5 2. Nf3 *\n\n",
            1000 + i,
            i % 60
        )));
        pgc.extend(std::iter::repeat_n(0x00, i % 3));
    }
    pgc.push(0x00);
    pgc
}

#[test]
fn the_same_batches_on_every_thread_count_and_every_byte_back() {
    let pgc = big_pgc();
    assert!(pgc.len() > 2 * pgc_arrow::PAR_BATCH_BYTES, "{}", pgc.len());
    let opts = ExportOptions::new(true, true);
    let one = convert_par(&pgc, 1, &opts).unwrap();
    assert!(one.len() >= 3, "{} batches", one.len());
    for threads in [2, 3, 8] {
        assert_eq!(convert_par(&pgc, threads, &opts).unwrap(), one);
    }
    let rows: usize = one.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, GAMES);
    let mut back = Vec::new();
    for b in &one {
        append_pgc(b, &mut back).unwrap();
    }
    assert_eq!(back, pgc);
}

#[test]
fn tables_in_every_file_format_give_the_pgc_back() {
    let pgc = big_pgc();
    let opts = ExportOptions::default();
    let batches = convert_par(&pgc, 2, &opts).unwrap();
    for format in [
        FileFormat::Parquet,
        FileFormat::ArrowFile,
        FileFormat::ArrowStream,
    ] {
        let dir = std::env::temp_dir().join(format!("pgc-arrow-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("t-{format:?}"));
        let file = std::fs::File::create(&path).unwrap();
        let wo = WriteOptions {
            row_group_size: 1000,
            ..WriteOptions::default()
        };
        let mut w = TableWriter::new(file, format, opts.schema(), wo).unwrap();
        for b in &batches {
            w.write(b).unwrap();
        }
        w.finish().unwrap();
        let mut r = TableReader::open(std::fs::File::open(&path).unwrap(), Some(&["pgc"])).unwrap();
        let mut back = Vec::new();
        let mut rows = 0;
        while let Some(b) = r.next_batch().unwrap() {
            rows += b.num_rows();
            append_pgc(&b, &mut back).unwrap();
        }
        assert_eq!(rows, GAMES, "{format:?}");
        assert!(
            back == pgc,
            "{format:?}: the pgc column differs from the input"
        );
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn records_without_a_game_are_refused() {
    // A lone noop record.
    let e = convert_par(&[0x00], 1, &ExportOptions::default()).unwrap_err();
    assert!(matches!(e, pgc_arrow::Error::NoGame { bytes: 1 }), "{e}");
    assert!(
        convert_par(&[], 1, &ExportOptions::default())
            .unwrap()
            .is_empty()
    );
}

#[test]
fn an_invalid_game_is_a_positioned_error() {
    // Ordinal 20 is out of range in the start position (20 legal moves).
    let mut pgc = pgc_of(PGN);
    let at = pgc.len();
    pgc.extend([0x05, 0x03, 1, 20, 0x06]);
    let e = convert_par(&pgc, 1, &ExportOptions::default()).unwrap_err();
    let pgc_arrow::Error::Walk(w) = &e else {
        panic!("{e}")
    };
    // 0x05 at `at`, then 0x03, the count, and the ordinal the error is about.
    assert_eq!((w.game, w.offset), (2, at as u64 + 3), "{e}");
}

/// A table of tag columns, `plies` and `pgc` only is made without
/// replaying the moves (the plies are counted): the same rows as the whole
/// table's, and an ordinal that names no legal move goes unnoticed there (a
/// column read from the moves finds it).
#[test]
fn a_table_of_tags_does_not_replay_the_moves() {
    let names = ["White", "WhiteElo", "Result", "other_tags", "plies", "pgc"];
    let tags = ExportOptions::with_columns(&names, false, false).unwrap();
    assert!(!pgc_arrow::bulk_options(&tags).moves);
    let pgc = [pgc_of(PGN), big_pgc()].concat();
    let (a, b) = (
        convert_par(&pgc, 2, &tags).unwrap(),
        convert_par(&pgc, 2, &ExportOptions::default()).unwrap(),
    );
    assert!(a.len() > 1, "one batch only");
    for (a, b) in a.iter().zip(&b) {
        let same = [Column::White, Column::WhiteElo, Column::Result];
        for c in same
            .into_iter()
            .chain([Column::OtherTags, Column::Plies, Column::Pgc])
        {
            assert_eq!(
                column(a, c).to_data(),
                column(b, c).to_data(),
                "{}",
                c.name()
            );
        }
    }
    let white = strings(&a[0], Column::White);
    assert_eq!(white[..2], [Some("Alice".into()), Some("Bob".into())]);
    // Seven plies; then four, the null move counted and the variation not.
    let plies = column(&a[0], Column::Plies).as_primitive::<Int32Type>();
    assert_eq!((plies.value(0), plies.value(1)), (7, 4));

    // `1. e4` made ordinal 20 of the start position (20 legal moves): no
    // legal move.
    let mut game = pgc_of("[White \"X\"]\n\n1. e4 *\n");
    // The move record: 0x03, one ordinal (before the termination marker's
    // extension record, whose header holds the same two bytes).
    let at = game.windows(2).position(|w| w == [0x03, 1]).unwrap() + 2;
    assert_eq!(game[at], 13, "e4 is ordinal 13 of the start position");
    game[at] = 20;
    let bad = [pgc_of(PGN), game].concat();
    let rows = convert_par(&bad, 1, &tags).unwrap();
    assert_eq!(strings(&rows[0], Column::White)[2], Some("X".into()));
    let plies = column(&rows[0], Column::Plies).as_primitive::<Int32Type>();
    assert_eq!(plies.value(2), 1);
    let uci = ExportOptions::with_columns(&["White"], true, false).unwrap();
    let e = convert_par(&bad, 1, &uci).unwrap_err().to_string();
    assert!(e.contains("ordinal 20"), "{e}");
}

/// A game of moves only (read from its move list) and the same game with
/// a comment, a NAG and a variation (read from its events) give the same
/// main line, written out by hand: castling as the king's move, a
/// promotion with its piece.
#[test]
fn a_game_of_moves_only_has_the_main_line_of_its_annotated_twin() {
    let bare = "[Event \"bare\"]\n\n1. e4 d5 2. exd5 c6 3. dxc6 Nf6 4. cxb7 e6 \
                5. bxa8=Q Be7 6. Nf3 O-O 7. Be2 Ba3 8. O-O *\n\n";
    let annotated = "[Event \"annotated\"]\n\n1. e4 d5 {a comment} 2. exd5 $1 c6 \
                     (2... Nf6) 3. dxc6 Nf6 4. cxb7 e6 5. bxa8=Q Be7 6. Nf3 O-O \
                     7. Be2 Ba3 8. O-O *\n\n";
    let pgc = pgc_of(&format!("{bare}{annotated}"));
    let b = &convert_par(&pgc, 1, &ExportOptions::new(true, false)).unwrap()[0];
    let want = [
        "e2e4", "d7d5", "e4d5", "c7c6", "d5c6", "g8f6", "c6b7", "e7e6", "b7a8q", "f8e7", "g1f3",
        "e8g8", "f1e2", "e7a3", "e1g1",
    ];
    assert_eq!(list_str(b, Column::Uci, 0), want);
    assert_eq!(list_str(b, Column::Uci, 1), want);
    let plies = column(b, Column::Plies).as_primitive::<Int32Type>();
    assert_eq!((plies.value(0), plies.value(1)), (15, 15));
    let ords = column(b, Column::Ordinals).as_list::<i32>();
    let row = |i: usize| -> Vec<Option<u8>> {
        ords.value(i).as_primitive::<UInt8Type>().iter().collect()
    };
    assert_eq!(row(0).len(), 15);
    assert_eq!(row(0), row(1));
}

#[test]
fn bytes_of_0xff_are_no_arrow_stream() {
    // An IPC stream's continuation marker, then a metadata length of -1.
    assert_eq!(FileFormat::sniff(&[0xff; 100]), None);
    // A length that is not a multiple of 8, and one that is.
    assert_eq!(
        FileFormat::sniff(&[0xff, 0xff, 0xff, 0xff, 0x0c, 0, 0, 0]),
        None
    );
    assert_eq!(
        FileFormat::sniff(&[0xff, 0xff, 0xff, 0xff, 0xf0, 0, 0, 0]),
        Some(FileFormat::ArrowStream)
    );
    let path = std::env::temp_dir().join(format!("pgc-arrow-ff-{}", std::process::id()));
    std::fs::write(&path, [0xff; 100]).unwrap();
    let e = TableReader::open(std::fs::File::open(&path).unwrap(), None).err();
    std::fs::remove_file(&path).unwrap();
    assert!(matches!(e, Some(pgc_arrow::Error::NotATable)), "{e:?}");
}
