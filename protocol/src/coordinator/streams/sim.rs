//! Randomised simulation of streams groups (see tests).
