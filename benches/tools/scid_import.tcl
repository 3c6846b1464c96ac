# SCID peer, step 1: import a PGN file into a new Scid 4 (si4) database.
#
# Usage: tkscid scid_import.tcl DB_BASENAME IN.pgn
#
# Any existing DB_BASENAME.si4/.sg4/.sn4 is deleted first. `sc_base create
# SCID4 name` makes name.si4 (index), name.sg4 (games) and name.sn4 (names);
# `sc_base import base file` parses the PGN, checks every move and returns
# {count warnings}.
if {$argc != 2} {
    puts stderr "usage: tkscid scid_import.tcl DB_BASENAME IN.pgn"
    exit 2
}
set db [lindex $argv 0]
set pgn [lindex $argv 1]
foreach ext {si4 sg4 sn4} { file delete -force "$db.$ext" }
if {[catch {sc_base create SCID4 $db} base]} {
    puts stderr "scid: cannot create $db: $base"
    exit 2
}
if {[catch {sc_base import $base $pgn} result]} {
    # Scid stops at the first game it cannot store (error code 210 for a game
    # whose si4 record would be too large) and returns an empty message.
    puts stderr "scid: import stopped after [sc_base numGames $base] games (Scid error code $::errorCode) $result"
    exit 1
}
set warnings [lindex $result 1]
puts "imported [sc_base numGames $base] games"
if {$warnings ne ""} { puts stderr $warnings }
sc_base close $base
exit 0
