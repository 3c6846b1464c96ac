# SCID peer, step 2: export every game of a Scid 4 database back to PGN.
#
# Usage: tkscid scid_export.tcl DB_BASENAME OUT.pgn
#
# `sc_base export filter PGN file ...` writes the games of the current base's
# filter (all games after opening), with comments and variations.
if {$argc != 2} {
    puts stderr "usage: tkscid scid_export.tcl DB_BASENAME OUT.pgn"
    exit 2
}
set db [lindex $argv 0]
set out [lindex $argv 1]
if {[catch {sc_base open $db} base]} {
    puts stderr "scid: cannot open $db: $base"
    exit 2
}
if {[catch {sc_base export "filter" "PGN" $out -append 0 -comments 1 -variations 1} err]} {
    puts stderr "scid: cannot export to $out: $err"
    exit 2
}
puts "exported [sc_base numGames $base] games"
sc_base close $base
exit 0
