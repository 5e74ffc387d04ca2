//! (temporary stub; replaced by the real parser)
use super::{Member, Parsed, Value, ValueKind};
use crate::diagnostics::{Diagnostic, Span};

struct P<'a> { s: &'a [u8], src: &'a str, i: usize }

pub fn parse(src: &str) -> Parsed {
    let mut p = P { s: src.as_bytes(), src, i: 0 };
    match p.value() {
        Ok(v) => Parsed { value: Some(v), diagnostics: vec![] },
        Err(e) => Parsed { value: None, diagnostics: vec![Diagnostic::error("K1001", Span::new(p.i, p.i + 1), e)] },
    }
}

impl P<'_> {
    fn ws(&mut self) {
        loop {
            while self.i < self.s.len() && (self.s[self.i] as char).is_whitespace() { self.i += 1; }
            if self.s[self.i..].starts_with(b"//") { while self.i < self.s.len() && self.s[self.i] != b'\n' { self.i += 1; } continue; }
            if self.s[self.i..].starts_with(b"/*") { match self.src[self.i + 2..].find("*/") { Some(k) => { self.i += k + 4; continue; } None => { self.i = self.s.len(); } } }
            break;
        }
    }
    fn value(&mut self) -> Result<Value, String> {
        self.ws();
        let start = self.i;
        let c = *self.s.get(self.i).ok_or("eof")?;
        let kind = match c {
            b'{' => {
                self.i += 1; let mut m = vec![];
                loop { self.ws(); if self.s.get(self.i) == Some(&b'}') { self.i += 1; break; }
                    let ks = self.i; let k = self.string()?; let key_span = Span::new(ks, self.i); self.ws();
                    if self.s.get(self.i) != Some(&b':') { return Err("expected :".into()); } self.i += 1;
                    let v = self.value()?; m.push(Member { key: k, key_span, value: v }); self.ws();
                    match self.s.get(self.i) { Some(b',') => self.i += 1, Some(b'}') => {} _ => return Err("expected , or }".into()) } }
                ValueKind::Object(m)
            }
            b'[' => {
                self.i += 1; let mut a = vec![];
                loop { self.ws(); if self.s.get(self.i) == Some(&b']') { self.i += 1; break; }
                    a.push(self.value()?); self.ws();
                    match self.s.get(self.i) { Some(b',') => self.i += 1, Some(b']') => {} _ => return Err("expected , or ]".into()) } }
                ValueKind::Array(a)
            }
            b'"' => ValueKind::String(self.string()?),
            b'-' | b'0'..=b'9' => { while self.i < self.s.len() && matches!(self.s[self.i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') { self.i += 1; } ValueKind::Number(self.src[start..self.i].to_string()) }
            c if c.is_ascii_alphabetic() => { while self.i < self.s.len() && self.s[self.i].is_ascii_alphanumeric() { self.i += 1; }
                match &self.src[start..self.i] { "true" => ValueKind::Bool(true), "false" => ValueKind::Bool(false), "null" => ValueKind::Null, w => ValueKind::Word(w.to_string()) } }
            _ => return Err(format!("unexpected {}", c as char)),
        };
        Ok(Value { kind, span: Span::new(start, self.i) })
    }
    fn string(&mut self) -> Result<String, String> {
        if self.s.get(self.i) != Some(&b'"') { return Err("expected string".into()); }
        self.i += 1; let mut out = String::new();
        loop { let c = self.src[self.i..].chars().next().ok_or("eof in string")?; self.i += c.len_utf8();
            match c { '"' => break, '\\' => { let e = self.src[self.i..].chars().next().ok_or("eof")?; self.i += 1;
                out.push(match e { 'n' => '\n', 't' => '\t', 'r' => '\r', 'b' => '\x08', 'f' => '\x0c', 'u' => { let h = &self.src[self.i..self.i + 4]; self.i += 4; char::from_u32(u32::from_str_radix(h, 16).map_err(|e| e.to_string())?).unwrap_or('?') } o => o }); }
                c => out.push(c) } }
        Ok(out)
    }
}
