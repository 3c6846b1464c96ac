//! Games → Arrow → Parquet → PGC on every file of the shared corpus.
//!
//! For each file: encode the PGN, make record batches on one thread and
//! on three, write them as Parquet, read the `pgc` column back: it must be
//! the encoded PGC byte for byte (so its PGN is the round trip's PGN), the
//! batches must be the same for both thread counts, and the table must
//! have one row per encoded game with the main line's plies.

use pgc_arrow::{
    ExportOptions, FileFormat, TableReader, TableWriter, WriteOptions, append_pgc, convert_par,
};
use pgc_core::{BulkOptions, par_map};
use pgc_tests::{corpus_dir, corpus_files, read_corpus_file, short};
use pgn_bridge::{EncodeOptions, pgn_to_pgc};

#[test]
fn corpus_tables_give_back_the_pgc() {
    let Some(dir) = corpus_dir() else { return };
    let tmp = std::env::temp_dir().join(format!("pgc-arrow-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let opts = ExportOptions::new(true, true);
    let mut failures = Vec::new();
    let mut files = 0;
    for path in corpus_files(&dir) {
        let name = short(&dir, &path);
        let pgn = read_corpus_file(&path);
        let mut pgc = Vec::new();
        let stats =
            pgn_to_pgc(&pgn[..], &mut pgc, None, &EncodeOptions::default()).expect("encode");
        let one = match convert_par(&pgc, 1, &opts) {
            Ok(b) => b,
            // Only games make rows: a file whose every game was rejected
            // (kept as verbatim text) has none, and says so.
            Err(e) if stats.encoded == 0 && e.to_string().contains("no game") => {
                println!("{name}: no game converted, no table ({e})");
                continue;
            }
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let three = convert_par(&pgc, 3, &opts).expect("as on one thread");
        if one != three {
            failures.push(format!("{name}: batches differ between 1 and 3 threads"));
        }
        // Plies counted by the bulk reader, game by game.
        let plies: Vec<i32> = par_map(&pgc, 1, BulkOptions::default(), |g| {
            g.positions().count() as i32 - 1
        })
        .expect("bulk read");
        let table_plies: Vec<i32> = one
            .iter()
            .flat_map(|b| {
                b.column_by_name("plies")
                    .expect("plies")
                    .as_any()
                    .downcast_ref::<arrow_array::Int32Array>()
                    .expect("int32")
                    .values()
                    .to_vec()
            })
            .collect();
        if table_plies.len() as u64 != stats.encoded || table_plies != plies {
            failures.push(format!(
                "{name}: {} rows for {} encoded games, plies {}",
                table_plies.len(),
                stats.encoded,
                if table_plies == plies {
                    "equal"
                } else {
                    "differ"
                }
            ));
        }
        let file = tmp.join("t.parquet");
        let out = std::fs::File::create(&file).expect("create");
        let mut w = TableWriter::new(
            out,
            FileFormat::Parquet,
            opts.schema(),
            WriteOptions::default(),
        )
        .expect("writer");
        for b in &one {
            w.write(b).expect("write");
        }
        w.finish().expect("finish");
        let mut r = TableReader::open(std::fs::File::open(&file).expect("open"), Some(&["pgc"]))
            .expect("reader");
        let mut back = Vec::new();
        while let Some(b) = r.next_batch().expect("read") {
            append_pgc(&b, &mut back).expect("pgc column");
        }
        if back != pgc {
            failures.push(format!(
                "{name}: the pgc column ({} bytes) is not the PGC ({} bytes)",
                back.len(),
                pgc.len()
            ));
        }
        files += 1;
    }
    let _ = std::fs::remove_dir_all(&tmp);
    println!("{files} corpus files through Parquet");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
