//! connect: see its issue. (Being built.)
