//! (temporary stub; replaced by the real lexer)
