//! reversi: see its issue. (Being built.)
