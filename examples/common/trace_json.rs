//! A small, strict JSON parser (RFC 8259) and a reader for forkjoin's trace files.
//!
//! Shared by `examples/trace_timeline.rs` (which draws the timelines) and `tests/trace.rs` (which
//! checks the files): no dependency, and strict enough to reject what a real JSON parser would
//! (trailing commas, bad escapes, leading zeros, control characters in strings, trailing garbage).
//! Numbers keep their text, so times in microseconds with three decimals convert to nanoseconds
//! exactly.

#![allow(dead_code)] // each includer uses a different part

use std::collections::BTreeMap;

/// A JSON value. Objects keep their keys in order of appearance (duplicates are an error here).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// The number's text, as written.
    Number(String),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(text) => text.parse().ok(),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(text) => text.parse().ok(),
            _ => None,
        }
    }

    /// A non-negative number of microseconds in whole nanoseconds (digits past the third decimal
    /// dropped; exact, no float arithmetic). `None` unless Perfetto's conversion (the float times
    /// 1000, truncated) and rounding the product give the same nanosecond.
    pub fn as_us_in_ns(&self) -> Option<u64> {
        let Value::Number(text) = self else {
            return None;
        };
        let (int, frac) = text.split_once('.').unwrap_or((text, ""));
        if text.contains(['e', 'E', '-']) {
            return None;
        }
        let frac_ns: u64 = format!("{:0<3}", &frac[..frac.len().min(3)]).parse().ok()?;
        let ns = int.parse::<u64>().ok()? * 1000 + frac_ns;
        let product = text.parse::<f64>().ok()? * 1000.0;
        (product as u64 == ns && product.round() as u64 == ns).then_some(ns)
    }
}

/// Parses a whole JSON text; `Err` says what is wrong and at which byte.
pub fn parse(text: &str) -> Result<Value, String> {
    let mut p = Parser {
        bytes: text.as_bytes(),
        pos: 0,
    };
    p.skip_ws();
    let value = p.value(0)?;
    p.skip_ws();
    if p.pos != p.bytes.len() {
        return Err(p.error("trailing characters after the value"));
    }
    Ok(value)
}

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> String {
        format!("{what} at byte {}", self.pos)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected `{}`", byte as char)))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > 128 {
            return Err(self.error("nested too deeply"));
        }
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Value::String),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.error("expected a value")),
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, String> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error("invalid literal"))
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, String> {
        self.expect(b'{')?;
        let mut members: Vec<(String, Value)> = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a string key"));
            }
            let key = self.string()?;
            if members.iter().any(|(k, _)| *k == key) {
                return Err(self.error(&format!("duplicate key {key:?}")));
            }
            self.skip_ws();
            self.expect(b':')?;
            self.skip_ws();
            let value = self.value(depth + 1)?;
            members.push((key, value));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(members));
                }
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, String> {
        self.expect(b'[')?;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.error("expected `,` or `]`")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self
            .bytes
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.error("short \\u escape"))?;
        let text = std::str::from_utf8(digits).map_err(|_| self.error("bad \\u escape"))?;
        if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(self.error("bad \\u escape"));
        }
        self.pos += 4;
        u32::from_str_radix(text, 16).map_err(|_| self.error("bad \\u escape"))
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out = String::new();
        loop {
            let start = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            out.push_str(
                std::str::from_utf8(&self.bytes[start..self.pos])
                    .map_err(|_| self.error("invalid UTF-8"))?,
            );
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let escaped = self.peek().ok_or_else(|| self.error("unfinished escape"))?;
                    self.pos += 1;
                    match escaped {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let unit = self.hex4()?;
                            let c = if (0xD800..0xDC00).contains(&unit) {
                                if !self.bytes[self.pos..].starts_with(b"\\u") {
                                    return Err(self.error("lone high surrogate"));
                                }
                                self.pos += 2;
                                let low = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&low) {
                                    return Err(self.error("bad low surrogate"));
                                }
                                0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                            } else {
                                unit
                            };
                            out.push(
                                char::from_u32(c).ok_or_else(|| self.error("bad code point"))?,
                            );
                        }
                        _ => return Err(self.error("unknown escape")),
                    }
                }
                Some(_) => return Err(self.error("control character in a string")),
                None => return Err(self.error("unterminated string")),
            }
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                while matches!(self.peek(), Some(b'0'..=b'9')) {
                    self.pos += 1;
                }
            }
            _ => return Err(self.error("expected a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            let digits = self.pos;
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
            if self.pos == digits {
                return Err(self.error("expected a digit after `.`"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            let digits = self.pos;
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
            if self.pos == digits {
                return Err(self.error("expected an exponent"));
            }
        }
        let text = std::str::from_utf8(&self.bytes[start..self.pos]).expect("ASCII digits");
        Ok(Value::Number(text.to_owned()))
    }
}

/// One trace event, the fields forkjoin writes.
#[derive(Clone, Debug)]
pub struct TraceEvent {
    pub name: String,
    pub cat: String,
    /// `X` (span), `i` (instant) or `M` (metadata).
    pub ph: String,
    pub pid: u64,
    pub tid: u64,
    /// Start, in nanoseconds (0 for metadata).
    pub ts_ns: u64,
    /// Length, in nanoseconds (0 for instants and metadata).
    pub dur_ns: u64,
    pub args: Value,
}

impl TraceEvent {
    /// `args[key]` as a string.
    pub fn arg_str(&self, key: &str) -> Option<&str> {
        self.args.get(key).and_then(Value::as_str)
    }

    pub fn end_ns(&self) -> u64 {
        self.ts_ns + self.dur_ns
    }
}

/// A trace file, read back: its events and `otherData`.
#[derive(Debug)]
pub struct TraceFile {
    pub events: Vec<TraceEvent>,
    pub other: Value,
}

impl TraceFile {
    /// Parses a file and checks the shape of every event (what Perfetto's and chrome://tracing's
    /// JSON importers need): name, ph, pid, tid; `ts` and `dur` on spans; `ts` and a thread scope on
    /// instants; `args` objects.
    pub fn parse(text: &str) -> Result<TraceFile, String> {
        let root = parse(text)?;
        let list = root
            .get("traceEvents")
            .and_then(Value::as_array)
            .ok_or("no traceEvents array")?;
        let mut events = Vec::with_capacity(list.len());
        for (i, e) in list.iter().enumerate() {
            let field = |k: &str| e.get(k).ok_or(format!("event {i} has no `{k}`: {e:?}"));
            let text = |k: &str| -> Result<String, String> {
                Ok(field(k)?
                    .as_str()
                    .ok_or(format!("event {i}: `{k}` is not a string"))?
                    .to_owned())
            };
            let number = |k: &str| -> Result<u64, String> {
                field(k)?
                    .as_u64()
                    .ok_or(format!("event {i}: `{k}` is not an integer"))
            };
            let ph = text("ph")?;
            let (ts_ns, dur_ns) = match ph.as_str() {
                "X" => (
                    field("ts")?
                        .as_us_in_ns()
                        .ok_or(format!("event {i}: bad ts"))?,
                    field("dur")?
                        .as_us_in_ns()
                        .ok_or(format!("event {i}: bad dur"))?,
                ),
                "i" => {
                    if text("s")? != "t" {
                        return Err(format!("event {i}: instant not thread-scoped"));
                    }
                    (
                        field("ts")?
                            .as_us_in_ns()
                            .ok_or(format!("event {i}: bad ts"))?,
                        0,
                    )
                }
                "M" => (0, 0),
                other => return Err(format!("event {i}: unexpected ph {other:?}")),
            };
            let args = field("args")?.clone();
            if !matches!(args, Value::Object(_)) {
                return Err(format!("event {i}: args is not an object"));
            }
            events.push(TraceEvent {
                name: text("name")?,
                cat: if ph == "M" {
                    String::new()
                } else {
                    text("cat")?
                },
                ph,
                pid: number("pid")?,
                tid: number("tid")?,
                ts_ns,
                dur_ns,
                args,
            });
        }
        let other = root.get("otherData").cloned().unwrap_or(Value::Null);
        Ok(TraceFile { events, other })
    }

    /// The thread names, by `(pid, tid)`.
    pub fn thread_names(&self) -> BTreeMap<(u64, u64), String> {
        self.events
            .iter()
            .filter(|e| e.ph == "M" && e.name == "thread_name")
            .filter_map(|e| Some(((e.pid, e.tid), e.arg_str("name")?.to_owned())))
            .collect()
    }

    /// The process names, by `pid`.
    pub fn process_names(&self) -> BTreeMap<u64, String> {
        self.events
            .iter()
            .filter(|e| e.ph == "M" && e.name == "process_name")
            .filter_map(|e| Some((e.pid, e.arg_str("name")?.to_owned())))
            .collect()
    }

    /// The spans and instants of one track, in file order.
    pub fn track(&self, pid: u64, tid: u64) -> Vec<&TraceEvent> {
        self.events
            .iter()
            .filter(|e| e.ph != "M" && e.pid == pid && e.tid == tid)
            .collect()
    }
}

/// Checks that the spans of one track nest: each starts after the enclosing one starts and ends
/// before it ends (or starts after it ended). `Err` names the first pair that overlaps.
pub fn check_nesting(events: &[&TraceEvent]) -> Result<(), String> {
    let mut spans: Vec<&TraceEvent> = events.iter().copied().filter(|e| e.ph == "X").collect();
    spans.sort_by(|a, b| a.ts_ns.cmp(&b.ts_ns).then(b.dur_ns.cmp(&a.dur_ns)));
    let mut open: Vec<&TraceEvent> = Vec::new();
    for span in spans {
        while let Some(top) = open.last() {
            if span.ts_ns >= top.end_ns() && !(span.dur_ns == 0 && span.ts_ns == top.end_ns()) {
                open.pop();
            } else {
                break;
            }
        }
        if let Some(top) = open.last() {
            if span.end_ns() > top.end_ns() {
                return Err(format!(
                    "`{}` [{}, {}] overlaps `{}` [{}, {}]",
                    span.name,
                    span.ts_ns,
                    span.end_ns(),
                    top.name,
                    top.ts_ns,
                    top.end_ns()
                ));
            }
        }
        open.push(span);
    }
    Ok(())
}
